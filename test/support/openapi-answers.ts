import { execFile } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/**
 * Checks real answers against an OpenAPI 3.1 document as a client generated from it would read
 * them: the operation the request reached, the status among its responses, the media type, the body
 * against the response's schema, and the response's headers (required ones present, every one sent
 * matching its schema). Schemas are JSON Schema 2020-12, OpenAPI 3.1's dialect, checked by ajv's
 * 2020-12 build with the document's own references resolved inside it. No response validator
 * on npm reads 3.1 schemas and headers both on Node 20: openapi-backend compiles schemas as
 * draft-07 and reads no header's `required`, express-openapi-validator checks only the JSON bodies
 * of a live express app, openapi-response-validator stops at 3.0, and Prism needs Node 24.
 */

interface HeaderObject {
  required?: boolean;
  schema?: Record<string, unknown>;
}
interface ResponseObject {
  headers?: Record<string, HeaderObject | { $ref: string }>;
  content?: Record<string, { schema?: Record<string, unknown> }>;
}
interface OperationObject {
  requestBody?: { content?: Record<string, unknown> };
  responses: Record<string, ResponseObject | { $ref: string }>;
}

/** An OpenAPI document as this checker reads it. */
export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, OperationObject>>;
  components?: Record<string, Record<string, unknown>>;
}

/** One answer as the client received it, to a request on `path` under the document's server. */
export interface Answer {
  method: string;
  path: string;
  status: number;
  headers: Headers;
  body: Buffer;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** A JSON pointer token as it sits in a URI fragment. */
const token = (name: string) => encodeURIComponent(name.replace(/~/g, '~0').replace(/\//g, '~1'));

const isJson = (mediaType: string) => mediaType === 'application/json' || mediaType.endsWith('+json');

/** Whether a document's media range (`application/pdf`, `image/*`, `*\/*`) covers a sent type. */
function covers(range: string, sent: string): boolean {
  const [type, subtype] = range.toLowerCase().split('/');
  const [sentType] = sent.split('/');
  return range.toLowerCase() === sent || (subtype === '*' && (type === '*' || type === sentType));
}

/** A header's value as its schema reads it: header values are text, numbers and booleans spelt out. */
function headerValue(value: string, schema: Record<string, unknown> | undefined): unknown {
  const type = schema?.type;
  if ((type === 'integer' || type === 'number') && /^-?[0-9]+(?:\.[0-9]+)?$/.test(value))
    return Number(value);
  if (type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

export class OpenApiAnswers {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly templates: { template: string; pattern: RegExp; literals: number }[];

  constructor(
    readonly document: OpenApiDocument,
    /** A name for the document's schemas, unique among the checkers of one test. */
    private readonly id: string,
  ) {
    addFormats(this.ajv);
    this.ajv.addSchema(document, id);
    // Concrete paths before templated ones, as OpenAPI matches them (`/cvs/import/json-resume`).
    this.templates = Object.keys(document.paths)
      .map((template) => ({
        template,
        pattern: new RegExp(
          `^${template
            .split(/\{[^}]+\}/)
            .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
            .join('[^/]+')}$`,
        ),
        literals: template.split('/').filter((part) => part !== '' && !part.startsWith('{')).length,
      }))
      .sort((a, b) => b.literals - a.literals);
  }

  /** The document's path template a request path (without its query) reaches, if any. */
  templateOf(path: string): string | undefined {
    const bare = path.split('?')[0] ?? path;
    return this.templates.find(({ pattern }) => pattern.test(bare))?.template;
  }

  /** "METHOD /template" of every operation the document describes. */
  operations(): string[] {
    return Object.entries(this.document.paths).flatMap(([template, item]) =>
      Object.keys(item)
        .filter((method) => METHODS.includes(method))
        .map((method) => `${method.toUpperCase()} ${template}`),
    );
  }

  /** Whether the schema at `at` in the document (`components`, `schemas`, `Name`) accepts `instance`. */
  accepts(at: string[], instance: unknown): boolean {
    return this.validator(at)(instance) === true;
  }

  /** What of the answer the document does not describe; nothing when it describes all of it. */
  problemsOf(answer: Answer): string[] {
    const method = answer.method.toLowerCase();
    const template = this.templateOf(answer.path);
    const where = `${answer.method.toUpperCase()} ${answer.path} → ${answer.status}`;
    if (template === undefined) return [`${where}: no path of the document matches`];
    const operation = this.document.paths[template]?.[method];
    if (operation === undefined) return [`${where}: ${template} has no ${method} operation`];
    const status = String(answer.status);
    const key = [status, `${status[0]}XX`, 'default'].find((k) => operation.responses[k] !== undefined);
    if (key === undefined) {
      return [`${where}: not one of the documented ${Object.keys(operation.responses).join(', ')}`];
    }
    const at = ['paths', template, method, 'responses', key];
    const response = this.resolved<ResponseObject>(operation.responses[key]!, at);
    return [
      ...this.headerProblems(response.value, response.at, answer),
      ...this.contentProblems(response.value, response.at, answer),
    ].map((problem) => `${where}: ${problem}`);
  }

  private headerProblems(response: ResponseObject, at: string[], answer: Answer): string[] {
    const problems: string[] = [];
    for (const [name, declared] of Object.entries(response.headers ?? {})) {
      // OpenAPI: a Content-Type header object is ignored; content says the type.
      if (name.toLowerCase() === 'content-type') continue;
      const header = this.resolved<HeaderObject>(declared, [...at, 'headers', name]);
      const value = answer.headers.get(name);
      if (value === null) {
        if (header.value.required === true) problems.push(`lacks the required header ${name}`);
        continue;
      }
      if (header.value.schema === undefined) continue;
      const validate = this.validator([...header.at, 'schema']);
      if (!validate(headerValue(value, header.value.schema))) {
        problems.push(`header ${name}: ${JSON.stringify(value)} ${this.ajv.errorsText(validate.errors)}`);
      }
    }
    return problems;
  }

  private contentProblems(response: ResponseObject, at: string[], answer: Answer): string[] {
    const sent = answer.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase();
    if (response.content === undefined) {
      return answer.body.length === 0 ? [] : [`a body (${sent}) where the document describes none`];
    }
    if (sent === undefined) return ['no Content-Type where the document describes a body'];
    const range =
      Object.keys(response.content).find((candidate) => candidate.toLowerCase() === sent) ??
      Object.keys(response.content).find((candidate) => covers(candidate, sent));
    if (range === undefined)
      return [`Content-Type ${sent}, not ${Object.keys(response.content).join(' or ')}`];
    if (response.content[range]?.schema === undefined) return [];
    let instance: unknown;
    if (isJson(sent)) {
      try {
        instance = JSON.parse(answer.body.toString('utf8'));
      } catch {
        return [`a ${sent} body that is not JSON: ${answer.body.toString('utf8').slice(0, 200)}`];
      }
    } else if (sent.startsWith('text/')) {
      instance = answer.body.toString('utf8');
    } else {
      // Bytes (a PDF): the schema says binary, which a JSON Schema validator cannot read; present is enough.
      return answer.body.length > 0 ? [] : [`an empty ${sent} body`];
    }
    const validate = this.validator([...at, 'content', range, 'schema']);
    if (validate(instance)) return [];
    return [`body ${this.ajv.errorsText(validate.errors)}: ${answer.body.toString('utf8').slice(0, 300)}`];
  }

  /** An object of the document, following a local `$ref` to where it is written. */
  private resolved<T>(value: T | { $ref: string }, at: string[]): { value: T; at: string[] } {
    const ref = (value as { $ref?: unknown }).$ref;
    if (typeof ref !== 'string') return { value: value as T, at };
    if (!ref.startsWith('#/')) throw new Error(`${ref}: only references inside the document are followed`);
    const path = ref
      .slice(2)
      .split('/')
      .map((part) => decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~'));
    let target: unknown = this.document;
    for (const part of path) target = (target as Record<string, unknown> | undefined)?.[part];
    if (target === undefined) throw new Error(`${ref} names nothing in the document`);
    return this.resolved(target as T | { $ref: string }, path);
  }

  /** The schema at `at`, compiled once per distinct schema: answers share most of theirs. */
  private validator(at: string[]): ValidateFunction {
    let schema: unknown = this.document;
    for (const part of at) schema = (schema as Record<string, unknown>)[part];
    // References are the document's own, so equal text means the same schema.
    const text = JSON.stringify(schema);
    let validate = this.validators.get(text);
    if (validate === undefined) {
      validate = this.ajv.compile({ $ref: `${this.id}#/${at.map(token).join('/')}` });
      this.validators.set(text, validate);
    }
    return validate;
  }
}

/** Every Schema Object of a document, where it is: components, parameters, bodies, responses, headers. */
function schemasOf(value: unknown, at: string[] = []): { at: string; schema: unknown }[] {
  if (typeof value !== 'object' || value === null) return [];
  if (Array.isArray(value)) return value.flatMap((item, i) => schemasOf(item, [...at, String(i)]));
  const parent = at[at.length - 1];
  // A Schema Object's own keywords hold schemas too, which the meta-schema checks with it.
  if (parent === 'schema' || (at[at.length - 2] === 'components' && parent === 'schemas')) {
    if (parent === 'schema') return [{ at: at.join('/'), schema: value }];
    return Object.entries(value as Record<string, unknown>).map(([name, schema]) => ({
      at: [...at, name].join('/'),
      schema,
    }));
  }
  return Object.entries(value).flatMap(([key, inner]) => schemasOf(inner, [...at, key]));
}

const DOCUMENT_CHECK = (validator: string) => `
import { Validator } from ${JSON.stringify(validator)};
let text = '';
for await (const chunk of process.stdin) text += chunk;
const results = [];
for (const document of JSON.parse(text)) {
  const { valid, errors } = await new Validator().validate(document);
  results.push(valid ? [] : typeof errors === 'string' ? [errors] : errors.map((e) => \`\${e.instancePath} \${e.message} \${JSON.stringify(e.params)}\`));
}
process.stdout.write(JSON.stringify(results));
`;

/**
 * What is wrong with each document as an OpenAPI 3.1 document: its shape against the OpenAPI
 * Initiative's 3.1 schema and its references resolved (@seriousme/openapi-schema-validator, run in
 * a child process since it is an ES module and Jest here loads CommonJS), and each Schema Object in
 * it against the JSON Schema 2020-12 meta-schema, which that schema leaves unchecked.
 */
export async function documentProblems(documents: readonly object[]): Promise<string[][]> {
  let validator: string;
  try {
    validator = pathToFileURL(require.resolve('@seriousme/openapi-schema-validator')).href;
  } catch {
    throw new Error('the devDependency @seriousme/openapi-schema-validator is not installed (npm ci)');
  }
  const shapes = await new Promise<string[][]>((resolve, reject) => {
    const child = execFile(
      process.execPath,
      ['--input-type=module', '--eval', DOCUMENT_CHECK(validator)],
      { maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${error.message}\n${stderr}`));
        else resolve(JSON.parse(stdout) as string[][]);
      },
    );
    child.stdin!.end(JSON.stringify(documents));
  });
  const ajv = new Ajv2020({ strict: false });
  return documents.map((document, i) => [
    ...shapes[i]!,
    ...schemasOf(document)
      .filter(({ schema }) => !ajv.validateSchema(schema as object))
      .map(
        ({ at, schema }) => `${at}: ${ajv.errorsText(ajv.errors)} in ${JSON.stringify(schema).slice(0, 200)}`,
      ),
  ]);
}
