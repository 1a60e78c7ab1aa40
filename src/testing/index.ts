export { createTestServer } from './server.js';
export type { TestRequest, TestServer, CreateTestServerOptions } from './server.js';
export type { H2Stats, TestServerStats, WebSocketServerStats } from './stats.js';
export type { H2Mode } from './h2-server.js';
export type { WebSocketMode } from './ws-server.js';
