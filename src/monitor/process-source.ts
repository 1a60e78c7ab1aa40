import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import type { MonitorSource, Reading } from './reading.js';

/**
 * USER_HZ, the unit of utime/stime in /proc/<pid>/stat: fixed at 100 by Linux's user ABI on every
 * architecture, whatever the kernel's own tick rate.
 */
const TICKS_PER_SECOND = 100;

/** The machine's boot time, epoch seconds (`btime` in /proc/stat), read once: a process's start is ticks after it. */
let bootTimeS: Promise<number | undefined> | undefined;
function bootTime(): Promise<number | undefined> {
  bootTimeS ??= readFile('/proc/stat', 'latin1').then(
    (text) => {
      const btime = /^btime (\d+)$/m.exec(text)?.[1];
      return btime === undefined ? undefined : Number(btime);
    },
    () => undefined,
  );
  return bootTimeS;
}

/**
 * A local process by pid, all its threads: CPU from /proc/<pid>/stat (utime + stime, 10 ms ticks),
 * resident memory from /proc/<pid>/status (VmRSS). Two small reads a second; Linux only.
 */
export class ProcessSource implements MonitorSource {
  readonly name: string;
  readonly scope = 'process' as const;
  readonly #pid: number;

  constructor(pid: number) {
    this.#pid = pid;
    this.name = `pid ${pid}`;
  }

  async read(): Promise<Omit<Reading, 'atMs'>> {
    if (process.platform !== 'linux')
      throw new Error(`reading a process needs Linux's /proc (this is ${process.platform})`);
    let stat: string, status: string;
    try {
      [stat, status] = await Promise.all([
        readFile(`/proc/${this.#pid}/stat`, 'latin1'),
        readFile(`/proc/${this.#pid}/status`, 'latin1'),
      ]);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new Error(
        code === 'ENOENT'
          ? `no process ${this.#pid} (it exited, or never ran)`
          : `cannot read /proc/${this.#pid}: ${code ?? String(error)}`,
        { cause: error },
      );
    }
    // The command name (field 2) is in parentheses and may hold spaces: count fields after its last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    const rssKb = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
    // A zombie has no memory left to report, and its CPU is final: it has exited.
    if (fields[0] === 'Z' || fields[0] === 'X') throw new Error(`process ${this.#pid} exited`);
    const booted = await bootTime();
    return {
      cpuSeconds: ticks / TICKS_PER_SECOND,
      cores: availableParallelism(),
      ...(booted !== undefined ? { processStartS: booted + Number(fields[19]) / TICKS_PER_SECOND } : {}),
      ...(rssKb !== undefined ? { rssBytes: Number(rssKb) * 1024 } : {}),
    };
  }

  close(): void {}
}
