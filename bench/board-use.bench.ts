import 'reflect-metadata';
import puppeteer from 'puppeteer-core';
import { CHROMIUM_FLAGS } from '../common/chromium';
import { loadConfig } from '../common/config';
import { connectRedis } from '../common/redis';
import { startStack } from '../tools/stack';
import { benchEnv, benchVenue } from './bench-stack';
import { flag } from './load';

/**
 * How many operations the staff board sends the gateway when a person works it as fast as a busy
 * counter goes, measured on the real page in Chromium against `npm start`'s processes: the figure
 * BOARD_RATE_LIMIT is set against (docs/API-DECISIONS.md, Board devices).
 *
 *   npm run build && npm run bench:board-use -- [--seconds 120] [--pause 1000]
 *
 * The venue has no POS, so the board does all of it: a person types each order's number and name
 * into the board's form (at 10 keys a second) and submits it, taps ready on the oldest waiting
 * ticket (the page sends it when its 5-second undo has run out), taps collected on the oldest ready
 * one, with `--pause` milliseconds between taps, and reloads the page once halfway, as a tablet
 * that lost its connection would. The operations are read back from the board device's own count
 * in Redis, where the gateway keeps it.
 */
async function main(): Promise<void> {
  const seconds = flag('seconds', 120);
  const pause = flag('pause', 1000);
  const plenty = '100000000';
  // The budget itself is lifted: this measures what the page sends, not what it may.
  const env = benchEnv({
    BOARD_RATE_LIMIT: plenty,
    SESSION_RATE_LIMIT: plenty,
    PUBLIC_WRITE_RATE_LIMIT: plenty,
    SIGNUP_RATE_LIMIT: plenty,
  });
  const stack = await startStack(env);
  const redis = await connectRedis(loadConfig(env).redis, 'board-use-bench');
  const browser = await puppeteer.launch({
    executablePath: loadConfig(env).render.chromiumPath,
    headless: true,
    args: [...CHROMIUM_FLAGS],
  });
  try {
    const { graph, branchId } = await benchVenue(stack.gatewayUrl, {
      who: 'board-use',
      venue: 'Bench Café',
      branch: 'Counter',
    });
    const { createBoardDevice } = await graph<{ createBoardDevice: { code: string } }>(
      'mutation ($i: CreateBoardDeviceInput!) { createBoardDevice(input: $i) { code } }',
      { i: { branchId, name: 'Counter tablet' } },
    );
    await redis.del(...(await redis.keys(`${env.REDIS_PREFIX}ratelimit:boards:*`)), 'nothing');

    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    const live = () => page.waitForSelector('#board[data-state="live"]', { timeout: 15_000 });
    await page.goto(`${new URL(stack.restUrl).origin}/board/pair#code=${createBoardDevice.code}`, {
      waitUntil: 'load',
    });
    await live();

    // Each window's counter expires with its window, so the counts are read while they last.
    const seen = new Map<string, number>();
    const sample = async () => {
      for (const key of await redis.keys(`${env.REDIS_PREFIX}ratelimit:boards:*`)) {
        seen.set(key, Math.max(seen.get(key) ?? 0, Number(await redis.get(key))));
      }
    };
    const sampler = setInterval(() => void sample(), 500);
    const taps = { created: 0, ready: 0, collected: 0, reloads: 0 };
    const started = Date.now();
    let reloaded = false;
    let order = 0;
    const rest = () => new Promise((resolve) => setTimeout(resolve, pause));
    while (Date.now() - started < seconds * 1000) {
      order += 1;
      await page.type('.new-ticket input[name=number]', String(order), { delay: 100 });
      await page.type('.new-ticket input[name=customerName]', 'Huda', { delay: 100 });
      await page.click('.new-ticket button[type=submit]');
      await page.waitForSelector(`[data-list="waiting"] li[data-number="${order}"]`);
      taps.created += 1;
      await rest();
      const waiting = await page.$('[data-list="waiting"] li button[data-action=ready]');
      if (waiting !== null) {
        await waiting.click();
        taps.ready += 1;
        await rest();
      }
      const ready = await page.$('[data-list="ready"] li button[data-action=collected]');
      if (ready !== null) {
        await ready.click();
        taps.collected += 1;
        await rest();
      }
      if (!reloaded && Date.now() - started > (seconds * 1000) / 2) {
        reloaded = true;
        await page.reload({ waitUntil: 'load' });
        await live();
        taps.reloads += 1;
      }
    }
    // Readies still in their undo window are sent once it runs out.
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    const elapsedMinutes = (Date.now() - started) / 60_000;
    clearInterval(sampler);
    await sample();
    const counts = [...seen.values()];
    const operations = counts.reduce((sum, count) => sum + count, 0);
    console.log(
      JSON.stringify(
        {
          seconds: Math.round(elapsedMinutes * 60),
          pauseMs: pause,
          taps,
          operations,
          operationsPerMinute: Math.round((operations / elapsedMinutes) * 10) / 10,
          busiestWindow: Math.max(0, ...counts),
          // The default the figure is set against, not the lifted one of this run.
          budget: loadConfig({}).boardRateLimit,
        },
        null,
        2,
      ),
    );
  } finally {
    await browser.close();
    redis.disconnect();
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
