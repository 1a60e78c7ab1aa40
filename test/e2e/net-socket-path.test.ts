// The net transport's `net.Socket` path for plain TCP, which runs where Node's TCP handle binding is
// missing or refused (raw-tcp.ts): net-transport's tests again with the bare handles switched off.
process.env['SALVO_RAW_TCP'] = '0';
await import('./net-transport.test.js');
