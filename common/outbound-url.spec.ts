import { lookup } from 'node:dns/promises';
import { checkWebhookUrlForm, isPublicAddress, UnsafeWebhookUrlError, vetWebhookHost } from './outbound-url';

// Unit tier: no network, so every name the tests resolve is answered here.
jest.mock('node:dns/promises', () => ({ lookup: jest.fn() }));
const answers = lookup as unknown as jest.Mock<Promise<{ address: string; family: number }[]>, [string]>;

type Case = readonly [address: string, why: string];

const octets = (ipv4: string): number[] => ipv4.split('.').map(Number);
/** An IPv4 address as the two 16-bit groups an IPv6 address carries it in. */
const words = (ipv4: string): [number, number] => {
  const [a = 0, b = 0, c = 0, d = 0] = octets(ipv4);
  return [(a << 8) | b, (c << 8) | d];
};
const inverted = (ipv4: string): [number, number] => {
  const [high, low] = words(ipv4);
  return [high ^ 0xffff, low ^ 0xffff];
};

/** RFC 5952 text: lower case, no leading zeros, the longest run of two or more zero groups as `::`. */
function compressed(groups: readonly number[]): string {
  let start = -1;
  let length = 0;
  for (let i = 0; i < groups.length;) {
    let end = i;
    while (end < groups.length && groups[end] === 0) end++;
    if (end - i >= 2 && end - i > length) [start, length] = [i, end - i];
    i = Math.max(end, i + 1);
  }
  const text = groups.map((group) => group.toString(16));
  if (start < 0) return text.join(':');
  return `${text.slice(0, start).join(':')}::${text.slice(start + length).join(':')}`;
}
const expanded = (groups: readonly number[]): string =>
  groups.map((group) => group.toString(16).padStart(4, '0')).join(':');
const withDottedTail = (head: string, ipv4: string): string =>
  head.endsWith('::') ? `${head}${ipv4}` : `${head}:${ipv4}`;

/** Every way the same address can be written; the dotted forms only where the IPv4 is the last 32 bits. */
function spellings(groups: readonly number[], tail?: string): string[] {
  const forms = [compressed(groups), expanded(groups), compressed(groups).toUpperCase()];
  if (tail !== undefined) {
    forms.push(withDottedTail(compressed(groups.slice(0, 6)), tail));
    forms.push(withDottedTail(expanded(groups.slice(0, 6)), tail));
    forms.push(withDottedTail(compressed(groups.slice(0, 6)).toUpperCase(), tail));
  }
  return [...new Set(forms)];
}

const TEREDO_SERVER = '65.54.227.120';

/** The IPv6 forms that carry an IPv4 address, and where they carry it. */
const EMBEDDINGS: readonly { name: string; groups: (ipv4: string) => number[]; dotted: boolean }[] = [
  { name: 'IPv4-mapped ::ffff:0:0/96', groups: (v4) => [0, 0, 0, 0, 0, 0xffff, ...words(v4)], dotted: true },
  {
    name: 'IPv4-translated ::ffff:0:0:0/96',
    groups: (v4) => [0, 0, 0, 0, 0xffff, 0, ...words(v4)],
    dotted: true,
  },
  { name: 'NAT64 64:ff9b::/96', groups: (v4) => [0x64, 0xff9b, 0, 0, 0, 0, ...words(v4)], dotted: true },
  {
    name: 'local-use NAT64 64:ff9b:1::/48',
    groups: (v4) => [0x64, 0xff9b, 1, 0, 0, 0, ...words(v4)],
    dotted: true,
  },
  { name: 'IPv4-compatible ::/96', groups: (v4) => [0, 0, 0, 0, 0, 0, ...words(v4)], dotted: true },
  { name: '6to4 2002::/16', groups: (v4) => [0x2002, ...words(v4), 0, 0, 0, 0, 1], dotted: false },
  {
    name: '6to4 2002::/16 with a subnet',
    groups: (v4) => [0x2002, ...words(v4), 0xbeef, 0, 0, 0, 1],
    dotted: false,
  },
  {
    name: 'Teredo 2001::/32 client',
    groups: (v4) => [0x2001, 0, ...words(TEREDO_SERVER), 0x8000, 0x63bf, ...inverted(v4)],
    dotted: false,
  },
  {
    name: 'Teredo 2001::/32 server',
    groups: (v4) => [0x2001, 0, ...words(v4), 0, 0, ...inverted('8.8.8.8')],
    dotted: false,
  },
];

const NOT_PUBLIC_IPV4: readonly Case[] = [
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'this network 0.0.0.0/8'],
  ['10.0.0.1', 'private 10.0.0.0/8'],
  ['10.255.255.254', 'private 10.0.0.0/8'],
  ['100.64.0.1', 'carrier-grade NAT 100.64.0.0/10'],
  ['100.127.255.254', 'carrier-grade NAT 100.64.0.0/10'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['169.254.169.254', 'link-local, cloud metadata'],
  ['169.254.0.1', 'link-local'],
  ['172.16.0.1', 'private 172.16.0.0/12'],
  ['172.31.255.254', 'private 172.16.0.0/12'],
  ['192.0.0.1', 'IETF protocol assignments 192.0.0.0/24'],
  ['192.0.0.170', 'IETF protocol assignments 192.0.0.0/24'],
  ['192.0.2.1', 'documentation TEST-NET-1'],
  ['192.88.99.1', '6to4 relay anycast'],
  ['192.168.1.1', 'private 192.168.0.0/16'],
  ['198.18.0.1', 'benchmarking 198.18.0.0/15'],
  ['198.19.255.254', 'benchmarking 198.18.0.0/15'],
  ['198.51.100.7', 'documentation TEST-NET-2'],
  ['203.0.113.9', 'documentation TEST-NET-3'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved 240.0.0.0/4'],
  ['255.255.255.255', 'broadcast'],
];

const PUBLIC_IPV4: readonly Case[] = [
  ['8.8.8.8', 'public'],
  ['1.1.1.1', 'public'],
  ['93.184.216.34', 'public'],
];

const embeddedCases = (ipv4s: readonly Case[]): Case[] =>
  EMBEDDINGS.flatMap(({ name, groups, dotted }) =>
    ipv4s.flatMap(([ipv4, why]) =>
      spellings(groups(ipv4), dotted ? ipv4 : undefined).map((address): Case => [
        address,
        `${why} ${ipv4} as ${name}`,
      ]),
    ),
  );

const NOT_PUBLIC_IPV6: readonly Case[] = [
  ['::1', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['::', 'unspecified'],
  ['0000:0000:0000:0000:0000:0000:0000:0000', 'unspecified'],
  ['::2', 'IPv4-compatible 0.0.0.2'],
  ['fc00::1', 'unique local fc00::/7'],
  ['fd00:ec2::254', 'unique local, cloud metadata'],
  ['FDFF:FFFF::1', 'unique local fc00::/7'],
  ['fe80::1', 'link-local fe80::/10'],
  ['febf:ffff::1', 'link-local fe80::/10'],
  ['fec0::1', 'site-local fec0::/10'],
  ['feff::1', 'site-local fec0::/10'],
  ['ff02::1', 'multicast ff00::/8'],
  ['ff05::1:3', 'multicast ff00::/8'],
  ['2001:db8::1', 'documentation 2001:db8::/32'],
  ['2001:DB8:85A3::8A2E:370:7334', 'documentation 2001:db8::/32'],
  ['3fff::1', 'documentation 3fff::/20'],
  ['3fff:fff:ffff::1', 'documentation 3fff::/20'],
  ['100::1', 'discard 100::/64'],
  ['100::ffff:ffff:ffff:ffff', 'discard 100::/64'],
  ['2001:1::1', 'IETF protocol assignments 2001::/23'],
  ['2001:10::1', 'IETF protocol assignments 2001::/23 (deprecated ORCHID)'],
  ['2001:1ff:ffff::1', 'IETF protocol assignments 2001::/23'],
  ['2001:2::1', 'benchmarking 2001:2::/48'],
  ['2001:2:0:ffff::1', 'benchmarking 2001:2::/48'],
  ['5f00::1', 'SRv6 SIDs 5f00::/16'],
  ['5f00:ffff::1', 'SRv6 SIDs 5f00::/16'],
  ['4000::1', 'unassigned, outside global unicast 2000::/3'],
  ['64:ff9b:1:ffff::7f00:1', 'local-use NAT64 not in the /96 layout'],
];

const NOT_ADDRESSES: readonly Case[] = [
  ['fe80::1%eth0', 'zone id'],
  ['fe80::1%25eth0', 'zone id, URL-escaped'],
  ['2606:4700:4700::1111%eth0', 'zone id on a global address'],
  ['::ffff:127.0.0.1%lo', 'zone id'],
  ['[::1]', 'brackets'],
  ['127.1', 'short IPv4'],
  ['0177.0.0.1', 'octal IPv4'],
  ['0x7f.0.0.1', 'hex IPv4'],
  ['not an address', 'not an address'],
  ['', 'empty'],
];

const PUBLIC_IPV6: readonly Case[] = [
  ['2606:4700:4700::1111', 'public'],
  ['2606:4700:4700:0000:0000:0000:0000:1111', 'public, expanded'],
  ['2a00:1450:4001::1', 'public'],
  ['2A00:1450:4001::1', 'public, upper case'],
  ['2001:4860:4860::8888', 'public, outside 2001::/23'],
];

const REPORTED: readonly Case[] = [
  ['64:ff9b::127.0.0.1', 'reported: NAT64 to loopback'],
  ['::7f00:1', 'reported: IPv4-compatible loopback'],
  ['::ffff:0:127.0.0.1', 'reported: IPv4-translated loopback'],
  ['64:ff9b::7f00:1', 'reported: NAT64 to loopback, as DNS and URLs write it'],
];

describe('isPublicAddress', () => {
  it.each([...REPORTED, ...NOT_PUBLIC_IPV4, ...embeddedCases(NOT_PUBLIC_IPV4), ...NOT_PUBLIC_IPV6])(
    'refuses %s (%s)',
    (address) => {
      expect(isPublicAddress(address)).toBe(false);
    },
  );

  it.each(NOT_ADDRESSES)('refuses %s (%s) without throwing', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each([
    ...PUBLIC_IPV4,
    ['11.0.0.1', 'public, just past 10.0.0.0/8'],
    ['172.32.0.1', 'public, just past 172.16.0.0/12'],
    ['100.128.0.1', 'public, just past carrier-grade NAT'],
    ['198.20.0.1', 'public, just past benchmarking'],
    ...embeddedCases(PUBLIC_IPV4),
    ...PUBLIC_IPV6,
  ] as Case[])('accepts %s (%s)', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it('refuses a Teredo address when either its server or its client is not public', () => {
    const teredo = (server: string, client: string): string =>
      compressed([0x2001, 0, ...words(server), 0, 0, ...inverted(client)]);
    expect(isPublicAddress(teredo('8.8.8.8', '1.1.1.1'))).toBe(true);
    expect(isPublicAddress(teredo('10.0.0.1', '1.1.1.1'))).toBe(false);
    expect(isPublicAddress(teredo('8.8.8.8', '10.0.0.1'))).toBe(false);
  });
});

describe('webhook URLs with a literal address', () => {
  const vet = async (url: string, allowInsecure = false) =>
    vetWebhookHost(checkWebhookUrlForm(url, allowInsecure), allowInsecure);

  it.each([
    ['https://[64:ff9b::127.0.0.1]/', 'reported: NAT64 to loopback'],
    ['https://[::7f00:1]/', 'reported: IPv4-compatible loopback'],
    ['https://[::ffff:0:127.0.0.1]/', 'reported: IPv4-translated loopback'],
    ['https://[::ffff:127.0.0.1]/hook', 'IPv4-mapped loopback'],
    ['https://[::FFFF:7F00:1]/', 'IPv4-mapped loopback, upper case'],
    ['https://[0000:0000:0000:0000:0000:ffff:7f00:0001]/', 'IPv4-mapped loopback, expanded'],
    ['https://[0064:ff9b:0000:0000:0000:0000:7f00:0001]:8443/', 'NAT64 loopback, expanded'],
    ['https://[64:ff9b::169.254.169.254]/latest', 'NAT64 to cloud metadata'],
    ['https://[64:FF9B::A00:1]/', 'NAT64 to private, upper case'],
    ['https://[64:ff9b:1::a00:1]/', 'local-use NAT64 to private'],
    ['https://[2002:a9fe:a9fe::1]/', '6to4 to cloud metadata'],
    ['https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', 'Teredo client loopback'],
    ['https://[fd00:ec2::254]/', 'unique local, cloud metadata'],
    ['https://[fe80::1]/', 'link-local'],
    ['https://[::1]:8443/', 'loopback'],
    ['https://[2001:db8::1]/', 'documentation'],
    ['https://[5f00::1]/', 'SRv6 SID'],
    ['https://127.0.0.1/', 'IPv4 loopback'],
    ['https://0x7f000001/', 'IPv4 loopback as one hex number'],
  ])('refuses %s (%s)', async (url) => {
    await expect(vet(url)).rejects.toThrow(UnsafeWebhookUrlError);
    await expect(vet(url)).rejects.toThrow('which is not a public address');
  });

  it.each([
    ['https://[::ffff:8.8.8.8]/', '::ffff:808:808'],
    ['https://[64:ff9b::1.1.1.1]/', '64:ff9b::101:101'],
    ['https://[64:ff9b::5db8:d822]/', '64:ff9b::5db8:d822'],
    ['https://[2606:4700:4700::1111]/', '2606:4700:4700::1111'],
    ['https://[2A00:1450:4001::1]/', '2a00:1450:4001::1'],
  ])('accepts %s and connects to %s', async (url, address) => {
    await expect(vet(url)).resolves.toEqual({ address, family: 6 });
  });

  it('refuses a literal non-public host at the form check, before any lookup (push subscriptions)', () => {
    answers.mockClear();
    for (const url of [
      'https://[64:ff9b::127.0.0.1]/push',
      'https://[::7f00:1]/push',
      'https://10.0.0.1/push',
    ]) {
      expect(() => checkWebhookUrlForm(url, false, 'endpoint')).toThrow(
        /^The endpoint's host .* which is not a public address\.$/,
      );
    }
    expect(checkWebhookUrlForm('https://push.example/x', false, 'endpoint').hostname).toBe('push.example');
    expect(answers).not.toHaveBeenCalled();
  });

  it('keeps reaching loopback in every form when insecure delivery is allowed', async () => {
    await expect(vet('http://127.0.0.1:8080/hook', true)).resolves.toEqual({
      address: '127.0.0.1',
      family: 4,
    });
    await expect(vet('http://[::1]:8080/hook', true)).resolves.toEqual({ address: '::1', family: 6 });
    await expect(vet('http://[::ffff:127.0.0.1]/', true)).resolves.toEqual({
      address: '::ffff:7f00:1',
      family: 6,
    });
    answers.mockResolvedValueOnce([{ address: '127.0.0.1', family: 4 }]);
    await expect(vet('http://receiver.test:8080/', true)).resolves.toEqual({
      address: '127.0.0.1',
      family: 4,
    });
  });
});

describe('webhook hosts resolved through DNS', () => {
  beforeEach(() => answers.mockReset());

  it.each([
    [[{ address: '64:ff9b::7f00:1', family: 6 }], 'NAT64 to loopback'],
    [[{ address: '::ffff:a9fe:a9fe', family: 6 }], 'IPv4-mapped cloud metadata'],
    [[{ address: '::ffff:0:a00:1', family: 6 }], 'IPv4-translated private'],
    [[{ address: '2002:c0a8:101::1', family: 6 }], '6to4 to private'],
    [
      [
        { address: '93.184.216.34', family: 4 },
        { address: '64:ff9b::a00:1', family: 6 },
      ],
      'one NAT64 private answer among public ones',
    ],
  ])('refuses a name that resolves to %j (%s)', async (resolved) => {
    answers.mockResolvedValueOnce(resolved);
    await expect(vetWebhookHost(new URL('https://hooks.example.test/'), false)).rejects.toThrow(
      'which is not a public address',
    );
  });

  it('accepts a name whose every answer is public, NAT64 ones judged by their IPv4', async () => {
    answers.mockResolvedValueOnce([
      { address: '64:ff9b::5db8:d822', family: 6 },
      { address: '93.184.216.34', family: 4 },
    ]);
    await expect(vetWebhookHost(new URL('https://hooks.example.test/'), false)).resolves.toEqual({
      address: '64:ff9b::5db8:d822',
      family: 6,
    });
  });
});
