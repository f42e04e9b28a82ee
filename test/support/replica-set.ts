import { startProcess, type PlatformProcess, type ProcessKind } from './processes';

/**
 * N replicas of one kind of process, each on a port of its own that it keeps across restarts (so
 * a load balancer's server list stays as it is). What each replica printed is kept after it ended.
 */
export class ReplicaSet {
  private readonly running: (PlatformProcess | undefined)[];
  private readonly printed: string[];

  constructor(
    readonly kind: ProcessKind,
    readonly ports: readonly number[],
    private readonly env: NodeJS.ProcessEnv,
  ) {
    this.running = ports.map(() => undefined);
    this.printed = ports.map(() => '');
  }

  readyUrl(index: number): string {
    return `http://127.0.0.1:${this.port(index)}/readyz`;
  }

  /** Starts replica `index` and resolves once its /readyz answers 200. */
  async start(index: number): Promise<void> {
    if (this.running[index] !== undefined) throw new Error(`${this.kind.name}-${index} is running already`);
    this.running[index] = await startProcess(
      this.kind.script,
      { ...this.env, [this.kind.portVariable]: String(this.port(index)) },
      this.readyUrl(index),
    );
  }

  startAll(): Promise<void[]> {
    return Promise.all(this.ports.map((_port, index) => this.start(index)));
  }

  /** SIGKILL: the replica dies where it stands, as in a crash. */
  kill(index: number): Promise<void> {
    return this.end(index, (process) => process.kill());
  }

  /** SIGTERM, resolved once the replica has drained and exited. */
  stop(index: number): Promise<void> {
    return this.end(index, (process) => process.stop());
  }

  async killAll(): Promise<void> {
    await Promise.all(this.ports.map((_port, index) => this.kill(index)));
  }

  /** The pid of the running replica; undefined while it is down. */
  pid(index: number): number | undefined {
    return this.running[index]?.child.pid;
  }

  output(index: number): string {
    return `${this.printed[index]}${this.running[index]?.output() ?? ''}`;
  }

  private port(index: number): number {
    const port = this.ports[index];
    if (port === undefined) throw new Error(`${this.kind.name} has no replica ${index}`);
    return port;
  }

  private async end(index: number, how: (process: PlatformProcess) => Promise<void>): Promise<void> {
    const process = this.running[index];
    if (process === undefined) return;
    await how(process);
    this.printed[index] +=
      `${process.output()}\n---- ${this.kind.name}-${index} exited ${process.child.exitCode ?? process.child.signalCode}\n`;
    this.running[index] = undefined;
  }
}
