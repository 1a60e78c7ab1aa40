// `live`: a page that draws the run as it goes (src/live/); its checks are in live-settings.ts.

/** `runLoad({ live })`: serve a page that draws the run second by second, then shows its report. */
export interface LiveOptions {
  /** The port to listen on; `0` (the default) takes a free one (see `onLive`). */
  port?: number;
  /**
   * The address to bind, `'127.0.0.1'` by default. Another address exposes the run's figures (and
   * with `control`, its controls) to whoever reaches it: see docs/live.md.
   */
  host?: string;
  /** Show controls on the page (stop, rate, connections) and accept them; off by default. */
  control?: boolean;
  /** Called once the page listens, with its address (`http://127.0.0.1:PORT/`). */
  onLive?: (info: { url: string }) => void;
}
