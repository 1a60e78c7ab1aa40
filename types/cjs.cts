// A consumer's CommonJS code (jest's default mode), compiled against dist/*.d.cts.
import salvo = require('salvo');
import testing = require('salvo/testing');
import report = require('salvo/report');
import gate = require('salvo/gate');

async function main(): Promise<void> {
  const server = await testing.createTestServer();
  const result: salvo.LoadResult = await salvo.runLoad({ url: server.url, amount: 100 });
  const completed: number = result.requests.completed;
  console.log(completed, salvo.formatResult(result), report.renderReport(result).length, gate.gatePassed({ testId: 't', results: [result] }));
  // @ts-expect-error: results are read-only numbers, not strings
  const wrong: string = result.requests.sent;
  void wrong;
  await server.close();
}
void main();
