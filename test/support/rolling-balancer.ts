import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts } from './processes';
import { waitUntil } from './wait';

const HAPROXY = process.env.HAPROXY_BIN ?? '/usr/sbin/haproxy';

/** Each backend has two slots: the replica serving now and the one a roll brings up beside it. */
type Slot = 's0' | 's1';

/**
 * HAProxy (Debian's package) in front of the platform's processes, one frontend per service on a
 * port of its own, driven through its runtime API as an orchestrator drives its endpoints: a roll
 * starts the new replica, puts it in, takes the old one out, and stops the old one only once no
 * request is left on it (maxSurge 1, maxUnavailable 0).
 */
export class LoadBalancer {
  private constructor(
    private readonly child: ChildProcess,
    private readonly dir: string,
    private readonly frontends: Record<string, number>,
    private readonly serving: Record<string, Slot>,
    private output: () => string,
  ) {}

  /** `backends` maps each service to the port of its first replica. */
  static async start(backends: Record<string, number>): Promise<LoadBalancer> {
    const names = Object.keys(backends);
    const ports = await freePorts(names.length);
    const frontends = Object.fromEntries(names.map((name, i) => [name, ports[i]!]));
    const dir = mkdtempSync(join(tmpdir(), 'nida-haproxy-'));
    const config = [
      'global',
      `  stats socket ${join(dir, 'admin.sock')} mode 600 level admin`,
      '  maxconn 4096',
      'defaults',
      '  mode http',
      '  timeout connect 2s',
      '  timeout client 60s',
      '  timeout server 60s',
      // One server connection per request: a replica taken out gets no request on a kept-alive one.
      '  option http-server-close',
      ...names.flatMap((name) => [
        `frontend ${name}`,
        `  bind 127.0.0.1:${frontends[name]}`,
        `  default_backend ${name}`,
        `backend ${name}`,
        `  server s0 127.0.0.1:${backends[name]}`,
        '  server s1 127.0.0.1:1 disabled',
      ]),
      '',
    ].join('\n');
    writeFileSync(join(dir, 'haproxy.cfg'), config);
    const child = spawn(HAPROXY, ['-db', '-f', join(dir, 'haproxy.cfg')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const balancer = new LoadBalancer(
      child,
      dir,
      frontends,
      Object.fromEntries(names.map((name) => [name, 's0'])),
      () => output,
    );
    await waitUntil(
      async () => {
        if (child.exitCode !== null) throw new Error(`haproxy exited with ${child.exitCode}: ${output}`);
        return (await balancer.command('show info').catch(() => '')).includes('Name: HAProxy');
      },
      10_000,
      'haproxy answering on its runtime socket',
    );
    return balancer;
  }

  /** Where clients and the other processes reach `service`. */
  url(service: string, path = '/graphql'): string {
    return `http://127.0.0.1:${this.frontends[service]}${path}`;
  }

  /**
   * Puts the replica on `port` in and takes the serving one out; resolves once the old one holds
   * no request, so it can be stopped without failing one.
   */
  async replace(service: string, port: number): Promise<void> {
    const old = this.serving[service]!;
    const next = old === 's0' ? 's1' : 's0';
    const moved = await this.command(`set server ${service}/${next} addr 127.0.0.1 port ${port}`);
    if (!/changed|no need to change/i.test(moved))
      throw new Error(`haproxy did not take the address: ${moved}`);
    for (const [slot, state] of [
      [next, 'ready'],
      [old, 'maint'],
    ] as const) {
      const answer = (await this.command(`set server ${service}/${slot} state ${state}`)).trim();
      if (answer !== '') throw new Error(`haproxy refused ${service}/${slot} ${state}: ${answer}`);
    }
    this.serving[service] = next;
    await waitUntil(
      async () => (await this.inFlight(service, old)) === 0,
      30_000,
      `${service}/${old} finishing its requests`,
    );
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.kill('SIGTERM');
      await exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** What haproxy printed, for reading a failure. */
  log(): string {
    return this.output();
  }

  /** Sessions and queued requests a server holds now (`show stat`: qcur and scur). */
  private async inFlight(service: string, slot: string): Promise<number> {
    const csv = await this.command('show stat');
    const [header, ...rows] = csv.split('\n');
    const columns = (header ?? '').replace(/^# /, '').split(',');
    const row = rows
      .map((line) => line.split(','))
      .find((cells) => cells[0] === service && cells[1] === slot);
    if (row === undefined) throw new Error(`haproxy shows no ${service}/${slot}`);
    return Number(row[columns.indexOf('qcur')]) + Number(row[columns.indexOf('scur')]);
  }

  /** One command on the runtime API; its answer as text. */
  private command(line: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connect(join(this.dir, 'admin.sock'));
      let answer = '';
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
      socket.on('error', reject);
      socket.on('end', () => resolve(answer));
      socket.write(`${line}\n`);
    });
  }
}
