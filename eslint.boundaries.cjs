// @ts-check
/**
 * The dependency rule (docs/ARCHITECTURE.md): doors (rest-adapter, gateway) never reach into a
 * domain (subgraphs/<x>), a domain never reaches a door or another domain, and common/ and
 * contracts/ know neither. Tools and benchmarks may use anything but tests.
 */
const DOMAINS = ['tickets', 'cv', 'billing', 'identity'];
const DOORS = ['./rest-adapter', './gateway'];
const OUTSIDE_THE_LAYERS = ['./tools', './bench', './test'];
const BOUNDARY_ZONES = [
  ...DOMAINS.map((domain) => ({
    target: `./subgraphs/${domain}`,
    from: [
      ...DOORS,
      ...OUTSIDE_THE_LAYERS,
      ...DOMAINS.filter((other) => other !== domain).flatMap((other) => [
        `./subgraphs/${other}`,
        `./migrations/${other}`,
      ]),
    ],
    message: `subgraphs/${domain} is a domain: it never imports a door, another domain or tools; what two sides share belongs in contracts/.`,
  })),
  {
    target: DOORS,
    from: ['./subgraphs', './migrations', ...OUTSIDE_THE_LAYERS],
    message:
      'A door knows the graph, never a subgraph’s insides: take what both sides agree on from contracts/.',
  },
  {
    target: ['./common', './contracts'],
    from: [...DOORS, './subgraphs', './migrations', ...OUTSIDE_THE_LAYERS],
    message: 'common/ and contracts/ know no door, no domain, no tool and no test.',
  },
  {
    target: './common',
    from: './contracts',
    message: 'common/ sits below contracts/: contracts import common, never the reverse.',
  },
  {
    target: ['./tools', './bench', './migrations'],
    from: './test',
    message: 'Only tests import test/.',
  },
];

/**
 * Inside a subgraph or a door, one folder per concern, lowest first: a folder may import a lower
 * one, and only through its index (what it chose to export); never a higher one, never the root
 * modules that compose them all. Each area's entry sits on lines of its own.
 */
const LAYERED_FOLDERS = {
  'subgraphs/tickets': {
    folders: ['venues', 'access', 'tickets', 'boards', 'events', 'insights', 'exports'],
    roots: ['tickets.subgraph.ts', 'main.ts'],
  },

  gateway: {
    folders: ['context', 'limits', 'fetch', 'live', 'observe', 'door', 'explorer'],
    roots: ['gateway.ts', 'main.ts'],
  },

  'subgraphs/cv': {
    folders: ['render', 'json-resume', 'accounts', 'templates', 'cvs', 'exports'],
    roots: ['cv.subgraph.ts', 'main.ts'],
  },
};

const FOLDER_ZONES = Object.entries(LAYERED_FOLDERS).flatMap(([area, { folders, roots }]) => {
  const at = (name) => `./${area}/${name}`;
  return [
    ...folders.flatMap((folder, rank) =>
      folders
        .filter((other) => other !== folder)
        .map((other) =>
          folders.indexOf(other) > rank
            ? {
                target: at(folder),
                from: at(other),
                message: `${area}/${folder} sits below ${other}/ (order: ${folders.join(' < ')}): it never imports it.`,
              }
            : {
                target: at(folder),
                from: at(other),
                except: ['./index.ts'],
                message: `${area}/${folder} uses ${other}/ only through its index: import '../${other}', and export from there what is missing.`,
              },
        ),
    ),
    {
      target: folders.map(at),
      from: roots.map(at),
      message: `The folders of ${area} never import its root modules: the roots compose them, not the reverse.`,
    },
  ];
});

BOUNDARY_ZONES.push(...FOLDER_ZONES);

/** Spec files beside the code keep every boundary but may use the helpers in test/. */
const SPEC_BOUNDARY_ZONES = BOUNDARY_ZONES.flatMap((zone) => {
  const from = [zone.from].flat().filter((path) => path !== './test');
  return from.length === 0 ? [] : [{ ...zone, from }];
});

module.exports = { BOUNDARY_ZONES, SPEC_BOUNDARY_ZONES, LAYERED_FOLDERS };
