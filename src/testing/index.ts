export { createTestServer } from './server.js';
export type { TestRequest, TestServer, TestServerOptions, TestServerStats } from './server.js';
