#!/usr/bin/env node
// Sends requests through an HTTP proxy with Node's own http module, on one kept-alive connection at most.
//
//     node proxy-client.js PROXY_PORT < requests.json > answers.json
//
// Reads a JSON list of {"method", "url" (absolute), "headers": {...}, "body": text}; sends them all at once through an
// http.Agent with keepAlive and maxSockets 1 to 127.0.0.1:PROXY_PORT, in absolute form, as a client configured with
// that proxy does; prints {"sockets": how many sockets the agent opened, "errors": [...], "answers": [{"status",
// "headers", "body"}, ...]} in the order of the requests. Every request gives up after 10 s.
'use strict';
const http = require('http');

const port = Number(process.argv[2]);
let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => { input += chunk; });
process.stdin.on('end', () => send(JSON.parse(input)));

function send(requests) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const sockets = new Set();
  const errors = [];
  const answers = new Array(requests.length).fill(null);
  let left = requests.length;

  requests.forEach((request, index) => {
    let isDone = false;
    const finish = () => {
      if (isDone) return;
      isDone = true;
      left -= 1;
      if (left === 0) {
        agent.destroy();
        process.stdout.write(JSON.stringify({ sockets: sockets.size, errors, answers }));
      }
    };
    const fail = (error) => {
      errors.push(`${request.method} ${request.url}: ${error.code || error.message}`);
      finish();
    };
    const headers = Object.assign({ Host: new URL(request.url).host }, request.headers || {});
    const outgoing = http.request(
      { host: '127.0.0.1', port, method: request.method, path: request.url, headers, agent, timeout: 10000 },
      (response) => {
        const chunks = [];
        response.on('data', (chunk) => chunks.push(chunk));
        response.on('end', () => {
          answers[index] = {
            status: response.statusCode,
            headers: response.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          };
          finish();
        });
        response.on('error', fail);
      },
    );
    outgoing.on('socket', (socket) => sockets.add(socket));
    outgoing.on('timeout', () => outgoing.destroy(new Error('timeout')));
    outgoing.on('error', fail);
    outgoing.end(request.body || undefined);
  });
}
