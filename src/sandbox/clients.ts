import { hashSeed } from './prng.js';

/**
 * The sample clients. `acme-plumbing` is the large one (100k keyword rows, thousands of reviews and
 * backlinks) that makes paging and digests honest; the two small ones carry hostile strings so the bot's
 * escaping is exercised.
 */

export interface SampleClient {
  id: string;
  name: string;
  website: string;
  size: 'large' | 'small';
  city: string;
  state: string;
  lat: number;
  lng: number;
  /** What the business sells; keywords and titles are built from these. */
  services: readonly string[];
  /** A synthetic client's size (synthetic.ts computes its keyword rows). */
  synthetic?: Synthetic;
}

export const SAMPLE_CLIENTS: readonly SampleClient[] = [
  {
    id: 'acme-plumbing',
    name: 'Acme Plumbing & Heating',
    website: 'https://acmeplumbing.example',
    size: 'large',
    city: 'Austin',
    state: 'TX',
    lat: 30.2672,
    lng: -97.7431,
    services: [
      'plumber',
      'emergency plumber',
      'water heater repair',
      'water heater installation',
      'tankless water heater',
      'drain cleaning',
      'sewer line repair',
      'leak detection',
      'slab leak repair',
      'toilet repair',
      'faucet repair',
      'garbage disposal repair',
      'gas line repair',
      'pipe replacement',
      'repiping',
      'sump pump installation',
      'water softener installation',
      'backflow testing',
      'hydro jetting',
      'burst pipe repair',
      'bathroom plumbing',
      'kitchen plumbing',
      'commercial plumber',
      'furnace repair',
      'boiler repair',
    ],
  },
  {
    id: 'bright-dental',
    name: 'Bright Dental Studio',
    website: 'https://brightdental.example',
    size: 'small',
    city: 'Portland',
    state: 'OR',
    lat: 45.5152,
    lng: -122.6784,
    services: ['dentist', 'teeth whitening', 'dental implants', 'invisalign', 'emergency dentist'],
  },
  {
    id: 'harbor-law',
    name: 'Harbor Law Group',
    website: 'https://harborlaw.example',
    size: 'small',
    city: 'Boston',
    state: 'MA',
    lat: 42.3601,
    lng: -71.0589,
    services: ['personal injury lawyer', 'car accident attorney', 'estate planning', 'divorce lawyer'],
  },
];

/**
 * Synthetic clients, for fleets and size curves (bench/fleet.ts): any id `synth-<keywords>x<days>-<n>` is a
 * client with that many keywords observed once a day for that many days (synthetic.ts). Not listed by
 * `resource=clients`; the full and read-only keys reach them.
 */
const SYNTHETIC = /^synth-(\d{1,6})x(\d{1,4})-(\d{1,6})$/;
export interface Synthetic {
  keywords: number;
  days: number;
  reviews: number;
}

function syntheticClient(id: string): SampleClient | undefined {
  const match = SYNTHETIC.exec(id);
  if (!match) return undefined;
  const keywords = Number(match[1]);
  const days = Number(match[2]);
  const n = Number(match[3]);
  if (keywords < 1 || days < 1) return undefined;
  return {
    id,
    name: `Synthetic Client ${n}`,
    website: `https://synthetic-${n}.example`,
    size: 'small',
    city: 'Denver',
    state: 'CO',
    lat: 39.7392,
    lng: -104.9903,
    services: ['roofer', 'roof repair', 'gutter cleaning', 'siding installation'],
    synthetic: { keywords, days, reviews: 50 + (hashSeed(id, 'reviews') % 151) },
  };
}

export function isSyntheticId(id: string): boolean {
  return SYNTHETIC.test(id);
}

export function findClient(id: string): SampleClient | undefined {
  return SAMPLE_CLIENTS.find((client) => client.id === id) ?? syntheticClient(id);
}

/** The row `resource=clients` answers for a client. */
export function clientRow(client: SampleClient): Record<string, unknown> {
  return { id: client.id, name: client.name, website: client.website, status: 'active' };
}
