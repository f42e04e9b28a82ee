/** The sum of a family's samples in a scrape whose labels include `having` (all, when omitted). */
export function sampleSum(scrape: string, name: string, having = ''): number {
  return scrape
    .split('\n')
    .filter((line) => (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) && line.includes(having))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/** `sampleSum` over what a process serves on its internal metrics port now. */
export async function scrapedSum(metricsPort: number, name: string, having = ''): Promise<number> {
  return sampleSum(await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text(), name, having);
}
