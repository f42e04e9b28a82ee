import puppeteer, { type Browser } from 'puppeteer-core';
import { CHROMIUM_FLAGS } from '../../common/chromium';

/** The system Chromium, headless, with the flags every Chromium the project starts must have. */
export function launchChromium(chromiumPath: string): Promise<Browser> {
  return puppeteer.launch({ executablePath: chromiumPath, headless: true, args: [...CHROMIUM_FLAGS] });
}
