export { createTestServer } from './server.js';
export type { TestRequest, TestServer, TestServerOptions, TestServerStats } from './server.js';
export type { H2Mode, H2Stats } from './h2-server.js';
export type { WebSocketMode, WebSocketServerStats } from './ws-server.js';
