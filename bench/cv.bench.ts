import 'reflect-metadata';
import { internalCredentialHeaders } from '../common/internal-credential';
import { CV_GET } from '../rest-adapter/cv/cv.operations';
import { SECTION_KEYS } from '../contracts/cv/cv.payload';
// test/ is outside tsconfig.build.json's include, but tsc still emits a file the build imports,
// so the bench fills the CV with the very payload the e2e tests call full.
import { fullCvPayload } from '../subgraphs/cv/render/sample-cv';
import { startStack } from '../tools/stack';
import { admin, benchEnv } from './bench-stack';
import { flag, load, type HttpCall, type LoadResult } from './load';

/**
 * GET /cvs/{uuid} of a full CV (every personal field, all 11 sections with 10 items each, custom
 * sections) through the three doors: the REST adapter, the gateway, and the cv subgraph itself,
 * each at 1 and 50 concurrent connections. The GraphQL doors get the very operation the REST route
 * sends (CV_GET), with the same X-API-Key. Starts its own stack on free ports and a `nida_bench`
 * database; only 127.0.0.1 is contacted; each run is bounded by --seconds.
 *
 * The stack runs with CV_RATE_LIMIT=100000000: the document's 60 a minute per account would
 * otherwise turn all but the first minute's 60 REST requests into 429s.
 *
 *   npm run build && npm run bench:cv -- [--seconds 5]
 */

const ITEMS = 10;

interface Door {
  door: string;
  next: () => HttpCall;
  ok: (status: number, body: string) => boolean;
  /** Where the CV sits in the parsed answer, and how this door spells its custom sections. */
  cvOf: (answer: Record<string, unknown>) => Record<string, unknown> | undefined;
  customKey: string;
}

/**
 * Why a door's answer is not the full CV, or nothing. Asked once per door before the timed runs,
 * since parsing a 15 KB answer per request would load the client more than the stack.
 */
function notFull(door: Door, status: number, text: string, customCount: number): string[] {
  if (status !== 200) return [`status ${status}: ${text.slice(0, 200)}`];
  const answer = JSON.parse(text) as Record<string, unknown>;
  if (answer.errors !== undefined) return [`GraphQL errors: ${JSON.stringify(answer.errors)}`];
  const cv = door.cvOf(answer);
  if (cv === undefined) return ['no CV in the answer'];
  const sections = (cv.sections ?? {}) as Record<string, unknown[] | undefined>;
  const problems = SECTION_KEYS.filter((key) => sections[key]?.length !== ITEMS).map(
    (key) => `${key}: ${sections[key]?.length ?? 'absent'} items, not ${ITEMS}`,
  );
  const custom = (cv[door.customKey] as unknown[] | undefined)?.length;
  if (custom !== customCount) problems.push(`${door.customKey}: ${custom ?? 'absent'}, not ${customCount}`);
  return problems;
}

async function main(): Promise<void> {
  const seconds = flag('seconds', 5);
  const env = benchEnv({ CV_RATE_LIMIT: '100000000' });
  const stack = await startStack(env);
  try {
    // nida_bench outlives a run, and account emails are unique.
    const email = `bench-${Date.now()}@example.com`;
    const account = admin(env, 'account', 'create', '--name', 'Bench CV', '--email', email, '--plan', 'pro');
    const { key } = admin(env, 'account-key', 'create', '--account', String(account.id)) as { key: string };
    const auth = { 'x-api-key': key };
    const json = { ...auth, 'content-type': 'application/json' };

    const templates = (await (await fetch(`${stack.restUrl}/templates`, { headers: auth })).json()) as {
      data: { id: number; slug: string }[];
    };
    const classic = templates.data.find((t) => t.slug === 'classic');
    if (classic === undefined) throw new Error('no classic template in GET /templates');
    const created = await fetch(`${stack.restUrl}/cvs`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ title: 'Bench CV', locale: 'ar', template_id: classic.id }),
    });
    if (created.status !== 201) throw new Error(`POST /cvs: ${created.status} ${await created.text()}`);
    const { id: uuid } = ((await created.json()) as { data: { id: string } }).data;
    const payload = fullCvPayload(ITEMS);
    const filled = await fetch(`${stack.restUrl}/cvs/${uuid}`, {
      method: 'PUT',
      headers: json,
      body: JSON.stringify(payload),
    });
    if (filled.status !== 200) throw new Error(`PUT /cvs/${uuid}: ${filled.status} ${await filled.text()}`);

    const graphqlBody = JSON.stringify({
      query: CV_GET.document,
      operationName: CV_GET.name,
      variables: { id: uuid },
    });
    const graphqlDoor = (door: string, url: string, headers: Record<string, string> = auth): Door => ({
      door,
      next: () => ({ method: 'POST', url, headers, body: graphqlBody }),
      ok: (status, body) => status === 200 && !body.includes('"errors"'),
      cvOf: (answer) => (answer.data as { cv?: Record<string, unknown> } | null)?.cv,
      customKey: 'customSections',
    });
    const doors: Door[] = [
      {
        door: 'REST',
        next: () => ({ method: 'GET', url: `${stack.restUrl}/cvs/${uuid}`, headers: auth }),
        ok: (status) => status === 200,
        cvOf: (answer) => answer.data as Record<string, unknown> | undefined,
        customKey: 'custom_sections',
      },
      graphqlDoor('gateway', stack.gatewayUrl),
      // Subgraphs answer only the platform: the benchmark holds the stack's internal secret.
      graphqlDoor('subgraph', `http://127.0.0.1:${stack.ports.cv}/graphql`, {
        ...auth,
        ...internalCredentialHeaders(stack.internalSecret),
      }),
    ];

    const bytes: Record<string, number> = {};
    for (const door of doors) {
      const call = door.next();
      const answer = await fetch(call.url, {
        method: call.method,
        headers:
          call.body === undefined ? call.headers : { ...call.headers, 'content-type': 'application/json' },
        ...(call.body === undefined ? {} : { body: call.body }),
      });
      const text = await answer.text();
      const problems = notFull(door, answer.status, text, payload.custom_sections.length);
      if (problems.length > 0)
        throw new Error(`${door.door} does not answer the full CV: ${problems.join('; ')}`);
      bytes[door.door] = Buffer.byteLength(text);
    }

    const results: (LoadResult & { door: string })[] = [];
    for (const concurrency of [1, 50]) {
      for (const d of doors) {
        await load('warm-up', d.next, { seconds: 1, concurrency, ok: d.ok });
        results.push({
          door: d.door,
          ...(await load(`GET cv via ${d.door}`, d.next, { seconds, concurrency, ok: d.ok })),
        });
      }
    }

    const find = (door: string, c: number) => results.find((r) => r.door === door && r.concurrency === c)!;
    const shares = [1, 50].map((c) => ({
      connections: c,
      restOfGatewayPercent: Math.round((find('REST', c).perSecond / find('gateway', c).perSecond) * 100),
      gatewayOfSubgraphPercent: Math.round(
        (find('gateway', c).perSecond / find('subgraph', c).perSecond) * 100,
      ),
    }));
    const table = [
      '| door | connections | req/s | p50 ms | p95 ms | p99 ms | errors |',
      '|---|---|---|---|---|---|---|',
      ...results.map(
        (r) =>
          `| ${r.door} | ${r.concurrency} | ${r.perSecond} | ${r.p50Ms} | ${r.p95Ms} | ${r.p99Ms} | ${r.errors} |`,
      ),
    ].join('\n');
    process.stdout.write(
      `${JSON.stringify({ seconds, itemsPerSection: ITEMS, responseBytes: bytes, results, shares }, null, 2)}\n\n${table}\n`,
    );
  } finally {
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${String(error)}\n`);
  process.exit(1);
});
