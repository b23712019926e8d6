// Debian's Chromium, headless, driven by playwright-core (which never downloads a
// browser here). WebGL2 runs on SwiftShader: no GPU needed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_BIN || '/usr/bin/chromium';

/** Resolves to { context, page, close() }; throws a clear message when Chromium is missing. */
export async function launch() {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM}: install Debian's package with ` +
      '`apt-get update && apt-get install -y chromium` (or set CHROMIUM_BIN). ' +
      'Do not run `npx playwright install`: no browser download works here.');
  }
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'vatbake-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 800, height: 600 },
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      // Without these Chromium reaches out to Google services; this network refuses them.
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    async close() {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}
