/** What the gateway answered: the HTTP status and the GraphQL body. */
export interface GraphReply {
  status: number;
  data: Record<string, unknown> | null;
  errors: { message: string; extensions?: Record<string, unknown> }[] | undefined;
}

/** `Authorization: Bearer …` for a session or a key; nothing without one. */
export function bearer(token: string | undefined): Record<string, string> {
  return token === undefined ? {} : { authorization: `Bearer ${token}` };
}

/** One GraphQL request over HTTP, as a web app sends it. */
export async function askGraph(
  url: string,
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<GraphReply> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as Omit<GraphReply, 'status'>;
  return { status: response.status, data: body.data ?? null, errors: body.errors };
}

/** The data of one GraphQL request that must succeed; a throw naming the query and its errors. */
export async function graphData<T>(
  url: string,
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<T> {
  const reply = await askGraph(url, query, variables, headers);
  if (reply.errors !== undefined) throw new Error(`${query}: ${JSON.stringify(reply.errors)}`);
  return reply.data as T;
}

const SIGN_UP = `mutation ($i: SignUpInput!) { signUp(input: $i) { token user { id } } }`;

export interface SignedUp {
  token: string;
  id: string;
  email: string;
  name: string;
}

/** A new person, signed in: what every panel test starts from. */
export async function signUpPerson(
  url: string,
  person: { email: string; name: string; password?: string; language?: 'ar' | 'en' },
  headers: Record<string, string> = {},
): Promise<SignedUp> {
  const reply = await askGraph(
    url,
    SIGN_UP,
    {
      i: {
        email: person.email,
        password: person.password ?? 'a long test passphrase',
        name: person.name,
        language: person.language ?? 'en',
      },
    },
    headers,
  );
  if (reply.errors !== undefined) throw new Error(`signUp failed: ${JSON.stringify(reply.errors)}`);
  const { signUp } = reply.data as { signUp: { token: string; user: { id: string } } };
  return { token: signUp.token, id: signUp.user.id, email: person.email, name: person.name };
}

export interface VenueWithPos {
  venueId: string;
  branchId: string;
  /** The branch's API key, as a POS integration holds it. */
  posKey: string;
}

/**
 * A venue its owner made on the graph, with one branch, on the Growth plan (the POS works over
 * REST, which needs the plan's API access; boards and displays do not) and a POS key of the branch.
 */
export async function venueWithPos(
  url: string,
  ownerToken: string,
  names: { venue: string; branch: string },
): Promise<VenueWithPos> {
  const as = bearer(ownerToken);
  const { createVenue } = await graphData<{ createVenue: { id: string } }>(
    url,
    'mutation ($i: CreateVenueInput!) { createVenue(input: $i) { id } }',
    { i: { name: names.venue } },
    as,
  );
  const venueId = createVenue.id;
  const { createBranch } = await graphData<{ createBranch: { id: string } }>(
    url,
    'mutation ($i: CreateBranchInput!) { createBranch(input: $i) { id } }',
    { i: { venueId, name: names.branch } },
    as,
  );
  await graphData(
    url,
    'mutation ($i: ChangePlanInput!) { changePlan(input: $i) { key } }',
    {
      i: { venueId, plan: 'growth' },
    },
    as,
  );
  const { issueApiKey } = await graphData<{ issueApiKey: { secret: string } }>(
    url,
    'mutation ($i: IssueApiKeyInput!) { issueApiKey(input: $i) { secret } }',
    { i: { branchId: createBranch.id, name: 'POS' } },
    as,
  );
  return { venueId, branchId: createBranch.id, posKey: issueApiKey.secret };
}
