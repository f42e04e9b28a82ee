import { readFileSync } from 'node:fs';
import { ProcessMetrics } from '../../common/metrics';
import {
  cpuSeconds,
  cpuSecondsByGroup,
  readProcesses,
  graphqlRequestsServed,
  listeningPorts,
  machineBusySeconds,
} from './process-stats';

describe('what the peer benchmark reads of a process', () => {
  const metrics = new ProcessMetrics('subgraph');
  let port: number;

  beforeAll(async () => {
    port = await metrics.listen(0, '127.0.0.1');
    const served = (method: string, route: string, status: string, times: number) => {
      const labels = { http_request_method: method, http_route: route, http_response_status_code: status };
      for (let i = 0; i < times; i++) metrics.httpDuration.observe(labels, 0.002);
    };
    served('POST', '/graphql', '200', 7);
    served('POST', '/graphql', '400', 2);
    served('GET', '/healthz', '200', 40);
  });

  afterAll(() => metrics.close());

  it('finds the ports a process listens on from /proc', () => {
    expect(listeningPorts(process.pid)).toContain(port);
  });

  it('reads CPU seconds that grow while the process computes', () => {
    const before = cpuSeconds(process.pid);
    const until = Date.now() + 150;
    let spin = 0;
    while (Date.now() < until) spin += Math.sqrt(spin + 1);
    expect(spin).toBeGreaterThan(0);
    expect(cpuSeconds(process.pid)).toBeGreaterThan(before);
  });

  it('reads the machine busy at least as long as this process computed', () => {
    const machineBefore = machineBusySeconds();
    const before = cpuSeconds(process.pid);
    // Spin until this process has computed 0.25 s, however long a machine busy with other suites takes to give it
    // that: a wall-clock spin can be handed less CPU than the assertion below asks for.
    const started = process.cpuUsage();
    const giveUpAt = Date.now() + 20_000;
    let spin = 0;
    while (
      process.cpuUsage(started).user + process.cpuUsage(started).system < 250_000 &&
      Date.now() < giveUpAt
    ) {
      for (let i = 0; i < 10_000; i++) spin += Math.sqrt(spin + 1);
    }
    expect(spin).toBeGreaterThan(0);
    const mine = cpuSeconds(process.pid) - before;
    // Both are counted in clock ticks: one tick of rounding either way.
    expect(machineBusySeconds() - machineBefore).toBeGreaterThanOrEqual(mine - 0.02);
    expect(mine).toBeGreaterThan(0.2);
  });

  it('reads every process of the machine and sums what each group used between two readings', () => {
    const seen: string[][] = [];
    const groupOf = (pid: number, command: string[]) => {
      seen.push(command);
      return pid === process.pid ? 'me' : 'others';
    };
    const before = readProcesses(groupOf);
    const started = process.cpuUsage();
    let spin = 0;
    while (process.cpuUsage(started).user + process.cpuUsage(started).system < 100_000)
      spin += Math.sqrt(spin + 1);
    expect(spin).toBeGreaterThan(0);
    const after = readProcesses(groupOf);
    expect(after.get(process.pid)?.seconds).toBeLessThanOrEqual(cpuSeconds(process.pid));
    expect(seen).toContainEqual(readFileSync('/proc/self/cmdline', 'utf8').split('\0').filter(Boolean));
    const used = cpuSecondsByGroup(before, after);
    expect(used.get('me')).toBeGreaterThan(0.05);
    // A process gone by the second reading takes nothing away.
    const gone = new Map(before).set(2 ** 30, { group: 'me', seconds: 1000 });
    expect(cpuSecondsByGroup(gone, after).get('me')).toBe(used.get('me'));
    expect([...used.keys()].sort()).toEqual(['me', 'others']);
  });

  it("sums a process's /graphql requests of every status and no other route", async () => {
    const url = `http://127.0.0.1:${port}/metrics`;
    expect(await graphqlRequestsServed([url, url])).toBe(18);
  });
});
