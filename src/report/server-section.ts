import type { LoadResult } from '../shared/load-result.js';
import { bytes, escapeHtml, ms, number, section, table } from './html.js';
import { runWords } from './words.js';

/**
 * What `monitor` saw, as a table under the run's numbers: the server's processes (CPU, CPU per
 * request, memory, event-loop lag) and the machine (node_exporter) in rows of their own, never one
 * for the other; then each source and whether it answered. Empty without `monitor`.
 */
export function serverSection(result: LoadResult): string {
  const server = result.server;
  if (server === undefined) return '';
  const unit = runWords(result).unit;
  const rows: string[][] = [];
  const add = (scope: string, measure: string, value: string) => rows.push([scope, escapeHtml(measure), value]);
  if (server.cpuPercent !== undefined)
    add(
      'server',
      `CPU${server.cores === undefined ? '' : ` (of ${server.cores} cores)`}`,
      `${number(server.cpuPercent)}% of a core`,
    );
  if (server.cpuPerRequestMs !== undefined) add('server', `CPU per ${unit}`, ms(server.cpuPerRequestMs));
  if (server.memory !== undefined)
    add(
      'server',
      'resident memory (mean, peak)',
      `${bytes(server.memory.rssBytes)}, ${bytes(server.memory.peakRssBytes)}`,
    );
  if (server.eventLoopLagMs !== undefined) add('server', 'event-loop lag (highest second)', ms(server.eventLoopLagMs));
  const machine = server.machine;
  if (machine?.cpuPercent !== undefined)
    add(
      'machine',
      `CPU${machine.cores === undefined ? '' : ` (of ${machine.cores} cores)`}`,
      `${number(machine.cpuPercent)}% of a core`,
    );
  if (machine?.memory !== undefined)
    add(
      'machine',
      'memory in use (mean, peak)',
      `${bytes(machine.memory.usedBytes)}, ${bytes(machine.memory.peakUsedBytes)}`,
    );
  if (machine?.network !== undefined)
    add(
      'machine',
      'network in, out',
      `${bytes(machine.network.receivedBytesPerSecond)}/s, ${bytes(machine.network.sentBytesPerSecond)}/s`,
    );
  const sources = server.sources.map((source) => [
    `<code>${escapeHtml(source.source)}</code>`,
    source.scope,
    source.sameProcessAs !== undefined
      ? `the process of ${escapeHtml(source.sameProcessAs)}: counted once`
      : source.answered
        ? `answered all ${number(source.seconds)} s`
        : `<span class="fail">${escapeHtml(source.error ?? 'missed samples')}</span> (${number(source.seconds)} s answered)`,
  ]);
  const figures =
    rows.length === 0
      ? '<p>No source gave a figure.</p>'
      : table(['scope', 'measure', 'value'], rows, { className: 'keyvalue', id: 'server-table', textColumns: [0, 1] });
  return section(
    'Server (monitor)',
    figures +
      table(['source', 'scope', 'answered'], sources, {
        className: 'keyvalue',
        id: 'server-sources',
        textColumns: [0, 1, 2],
      }),
    'server',
  );
}
