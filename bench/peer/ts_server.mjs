// `add(a, b)` served by the official MCP TypeScript SDK (@modelcontextprotocol/sdk 1.32.2,
// which speaks up to 2025-11-25) over streamable HTTP on node:http, as the SDK's README
// serves it, with JSON answers (`enableJsonResponse`), as lazytool's are:
//
//   node ts_server.mjs [PORT]              # stateful: a transport and McpServer per session
//   node ts_server.mjs --stateless [PORT]  # the SDK's stateless mode: both per request
//
// Prints `listening http://127.0.0.1:PORT/mcp` on stdout.

import { randomUUID } from 'node:crypto';
import http from 'node:http';

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

const args = process.argv.slice(2);
const stateless = args.includes('--stateless');
const port = Number(args.find((arg) => arg !== '--stateless') ?? 0);

function adder() {
  const server = new McpServer({ name: 'peer-ts', version: '0' });
  server.registerTool(
    'add',
    {
      description: 'Adds two integers.',
      inputSchema: { a: z.number().int(), b: z.number().int() },
    },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  return server;
}

async function readJson(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
}

function jsonRpcError(res, status, message) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message } }));
}

const sessions = new Map();

async function statefulRequest(req, res) {
  const body = req.method === 'POST' ? await readJson(req) : undefined;
  const sessionId = req.headers['mcp-session-id'];
  let transport = sessionId ? sessions.get(sessionId) : undefined;
  if (!transport) {
    if (sessionId || req.method !== 'POST' || !isInitializeRequest(body)) {
      return jsonRpcError(res, sessionId ? 404 : 400, 'no valid session');
    }
    transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: true,
      onsessioninitialized: (id) => sessions.set(id, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await adder().connect(transport);
  }
  await transport.handleRequest(req, res, body);
}

async function statelessRequest(req, res) {
  const body = req.method === 'POST' ? await readJson(req) : undefined;
  const server = adder();
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  res.on('close', () => {
    transport.close();
    server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

const handle = stateless ? statelessRequest : statefulRequest;
const httpServer = http.createServer({ noDelay: true }, (req, res) => {
  if (new URL(req.url, 'http://localhost').pathname !== '/mcp') {
    res.writeHead(404).end();
    return;
  }
  handle(req, res).catch((error) => {
    if (!res.headersSent) jsonRpcError(res, 500, String(error));
    else res.end();
  });
});
httpServer.listen(port, '127.0.0.1', () => {
  console.log(`listening http://127.0.0.1:${httpServer.address().port}/mcp`);
});
