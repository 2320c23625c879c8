/**
 * A readable, dependency-free reference page rendered on the server from the OpenAPI document,
 * so `/docs` works offline and shows exactly what `/api/v1/openapi.json` says.
 */
import { escapeHtml } from '../http/html.js';

interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: { name: string; in: string; required?: boolean; description?: string; schema?: unknown }[];
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>;
  [extension: `x-${string}`]: unknown;
}

interface Document {
  info: { title: string; version: string; description?: string };
  paths?: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, unknown> };
}

/** Inline `code` spans only: descriptions are plain text otherwise. */
function prose(text: string | undefined): string {
  return text ? `<p>${escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>')}</p>` : '';
}

function schemaBlock(schema: unknown): string {
  if (!schema) return '';
  const json = escapeHtml(JSON.stringify(schema, null, 2)).replace(
    /&quot;#\/components\/schemas\/([A-Za-z0-9_]+)&quot;/g,
    '<a href="#schema-$1">&quot;#/components/schemas/$1&quot;</a>',
  );
  return `<pre>${json}</pre>`;
}

function renderOperation(path: string, method: string, op: Operation): string {
  const params = (op.parameters ?? [])
    .map(
      (p) =>
        `<tr><td><code>${escapeHtml(p.name)}</code></td><td>${p.in}</td><td>${p.required ? 'yes' : 'no'}</td>` +
        `<td>${escapeHtml(JSON.stringify(p.schema ?? {}))}</td><td>${escapeHtml(p.description ?? '')}</td></tr>`,
    )
    .join('');
  const body = op.requestBody?.content?.['application/json']?.schema;
  const responses = Object.entries(op.responses ?? {})
    .map(([status, r]) => {
      const schema = Object.values(r.content ?? {})[0]?.schema;
      return `<li><strong>${status}</strong> ${escapeHtml(r.description ?? '')}${schemaBlock(schema)}</li>`;
    })
    .join('');
  const extensions = Object.entries(op)
    .filter(([k]) => k.startsWith('x-'))
    .map(([k, v]) => `<li><code>${escapeHtml(k)}</code>: ${escapeHtml(JSON.stringify(v))}</li>`)
    .join('');
  return `<section class="op" id="${escapeHtml(op.operationId ?? `${method}-${path}`)}">
<h3><span class="method ${method}">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code></h3>
${prose(op.summary)}${prose(op.description)}
${extensions ? `<ul class="ext">${extensions}</ul>` : ''}
${params ? `<h4>Parameters</h4><table><tr><th>name</th><th>in</th><th>required</th><th>schema</th><th>description</th></tr>${params}</table>` : ''}
${body ? `<h4>Request body (application/json)</h4>${schemaBlock(body)}` : ''}
<h4>Responses</h4><ul>${responses}</ul></section>`;
}

export function renderDocsPage(document: object): string {
  const doc = document as Document;
  const byTag = new Map<string, string[]>();
  for (const [path, methods] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(methods)) {
      const tag = op.tags?.[0] ?? 'other';
      byTag.set(tag, [...(byTag.get(tag) ?? []), renderOperation(path, method, op)]);
    }
  }
  const sections = [...byTag].map(([tag, ops]) => `<h2 id="tag-${escapeHtml(tag)}">${escapeHtml(tag)}</h2>${ops.join('')}`);
  const toc = [...byTag.keys()].map((tag) => `<li><a href="#tag-${escapeHtml(tag)}">${escapeHtml(tag)}</a></li>`);
  const schemas = Object.entries(doc.components?.schemas ?? {}).map(
    ([name, schema]) => `<section id="schema-${escapeHtml(name)}"><h3>${escapeHtml(name)}</h3>${schemaBlock(schema)}</section>`,
  );
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(doc.info.title)} reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:2rem auto;padding:0 1rem;color:#1d2433}
h2{border-bottom:2px solid #dde3ee;padding-bottom:.3rem;margin-top:2.5rem;text-transform:capitalize}
.op{border:1px solid #dde3ee;border-radius:6px;padding:.5rem 1rem;margin:1rem 0}
.method{display:inline-block;min-width:4.5rem;text-align:center;border-radius:4px;color:#fff;font-size:.8rem;padding:.1rem .4rem}
.get{background:#2f7d32}.post{background:#1f5fbf}.patch{background:#a0620a}.put{background:#6a3fb5}.delete{background:#b3261e}
pre{background:#f5f7fb;padding:.6rem;overflow:auto;font-size:.8rem;border-radius:4px}
table{border-collapse:collapse;font-size:.85rem}td,th{border:1px solid #dde3ee;padding:.2rem .5rem;text-align:left}
code{background:#f0f2f7;padding:0 .2rem;border-radius:3px}
</style></head><body>
<h1>${escapeHtml(doc.info.title)} <small>v${escapeHtml(doc.info.version)}</small></h1>
${prose(doc.info.description)}
<p>Machine-readable: <a href="/api/v1/openapi.json">/api/v1/openapi.json</a> (OpenAPI 3.1).</p>
<ul>${toc.join('')}<li><a href="#schemas">schemas</a></li></ul>
${sections.join('\n')}
<h2 id="schemas">Schemas</h2>${schemas.join('\n')}
</body></html>`;
}
