// A real OpenID Connect provider (panva's certified oidc-provider) for the gateway's OIDC
// tests: `node provider.mjs AUDIENCE` listens on a free port of 127.0.0.1, prints
// `issuer http://127.0.0.1:PORT`, and exits when its standard input closes (its test ends).
//
// Clients (client_credentials, secret `<id>-secret`) get RFC 9068 JWT access tokens for
// AUDIENCE, whatever `resource` they name, signed with the key of their algorithm
// (RS256, ES256 or EdDSA, generated at start); `groups` comes from the table below;
// `stranger`'s tokens are for another audience. Access tokens in JWT format have
// `typ: at+jwt` (RFC 9068; oidc-provider's lib/models/formats/jwt.js). The client whose id
// is AUDIENCE (secret `<AUDIENCE>-secret`) logs a person in with the authorization code flow
// through the development login and consent pages (any login, any password): its ID tokens
// name AUDIENCE in `aud`, as an access token for the gateway would. Test-only routes:
// `GET /test/jwks-fetches` counts the key set's fetches; `POST /test/sign {"alg", "kid"?,
// "typ"?, "claims"}` signs any claims with the provider's key (expired, early, wrong-issuer
// and malformed tokens), with `typ` at+jwt unless given (`null`: no `typ`).
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import Provider from 'oidc-provider';
import { SignJWT } from 'jose';

const audience = process.argv[2] ?? 'lazytool';
const keys = {};
const jwks = [];
for (const [alg, type, options] of [
  ['RS256', 'rsa', { modulusLength: 2048 }],
  ['ES256', 'ec', { namedCurve: 'P-256' }],
  ['EdDSA', 'ed25519', {}],
]) {
  const { privateKey } = generateKeyPairSync(type, options);
  keys[alg] = privateKey;
  jwks.push({ ...privateKey.export({ format: 'jwk' }), kid: `${alg}-key`, alg, use: 'sig' });
}

const clients = {
  // name: [signing alg, groups, scope]
  admin: ['RS256', ['admins'], 'mcp'],
  reader: ['ES256', ['readers'], 'mcp tools:read'],
  nobody: ['EdDSA', [], 'mcp'],
  stranger: ['RS256', ['admins'], 'mcp'],
  unscoped: ['RS256', ['admins'], ''],
  // A string, not an array: a rule `{"groups": "admins"}` must not find `admins` in it.
  padded: ['RS256', 'staff admins', 'mcp'],
};

const server = createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  clients: [
    ...Object.entries(clients).map(([id, [alg, , scope]]) => ({
      client_id: id,
      client_secret: `${id}-secret`,
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      scope: scope || undefined,
      token_endpoint_auth_method: 'client_secret_basic',
      access_token_signed_response_alg: alg,
    })),
    {
      client_id: audience,
      client_secret: `${audience}-secret`,
      grant_types: ['authorization_code'],
      response_types: ['code'],
      redirect_uris: ['http://127.0.0.1/callback'],
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: 'RS256',
    },
  ],
  jwks: { keys: jwks },
  scopes: ['openid', 'mcp', 'tools:read'],
  features: {
    clientCredentials: { enabled: true },
    devInteractions: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => 'urn:lazytool:gateway',
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx, resource, client) => ({
        scope: 'mcp tools:read',
        audience: client.clientId === 'stranger' ? 'another-api' : audience,
        accessTokenTTL: 300,
        accessTokenFormat: 'jwt',
        jwt: { sign: { alg: clients[client.clientId]?.[0] ?? 'RS256' } },
      }),
    },
  },
  extraTokenClaims: (ctx, token) => ({ groups: clients[token.clientId]?.[1] ?? [] }),
});
provider.proxy = false;

let jwksFetches = 0;
const callback = provider.callback();
server.on('request', async (request, response) => {
  const path = new URL(request.url, issuer).pathname;
  if (path === '/jwks') jwksFetches += 1;
  if (path === '/test/jwks-fetches') {
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ fetches: jwksFetches }));
    return;
  }
  if (path === '/test/sign' && request.method === 'POST') {
    let body = '';
    for await (const chunk of request) body += chunk;
    const { alg, kid, typ, claims } = JSON.parse(body);
    const header = { alg, kid: kid ?? `${alg}-key`, typ: typ === undefined ? 'at+jwt' : typ };
    if (header.typ === null) delete header.typ;
    const token = await new SignJWT(claims).setProtectedHeader(header).sign(keys[alg]);
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ token }));
    return;
  }
  callback(request, response);
});

process.stdout.write(`issuer ${issuer}\n`);
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
process.stdin.on('close', () => process.exit(0));
