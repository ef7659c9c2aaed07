/** Vocabulary of the sample rows. Plain data, so generated rows read like a real agency's. */

export const FIRST_NAMES = [
  'Maria',
  'James',
  'Aisha',
  'Chen',
  'Olivia',
  'Diego',
  'Priya',
  'Liam',
  'Fatima',
  'Noah',
  'Sofia',
  'Kwame',
  'Emma',
  'Hiro',
  'Grace',
  'Mateo',
  'Zara',
  'Ethan',
  'Leila',
  'Owen',
] as const;

export const LAST_NAMES = [
  'Garcia',
  'Smith',
  'Khan',
  'Nguyen',
  'Johnson',
  'Okafor',
  'Patel',
  'Brown',
  'Rossi',
  'Kim',
  'Martinez',
  'Cohen',
  'Silva',
  'Walker',
  'Tanaka',
  'Murphy',
  'Haddad',
  'Lopez',
  'Fischer',
  'Reed',
] as const;

export const CITIES = [
  'austin',
  'round rock',
  'cedar park',
  'pflugerville',
  'georgetown',
  'leander',
  'kyle',
  'buda',
  'san marcos',
  'lakeway',
  'bee cave',
  'dripping springs',
  'manor',
  'hutto',
  'taylor',
  'bastrop',
  'westlake',
  'del valle',
  'elgin',
  'liberty hill',
  'wimberley',
  'lockhart',
  'jonestown',
  'spicewood',
  'marble falls',
  'salado',
  'temple',
  'killeen',
  'belton',
  'harker heights',
  'copperas cove',
  'lampasas',
  'burnet',
  'granite shoals',
  'horseshoe bay',
  'volente',
  'briarcliff',
  'mustang ridge',
  'creedmoor',
  'niederwald',
] as const;

export const MODIFIERS = [
  '',
  'best',
  'cheap',
  'affordable',
  '24 hour',
  'near me',
  'local',
  'top rated',
  'licensed',
  'same day',
  'trusted',
  'reviews',
  'cost',
  'prices',
  'quotes',
  'companies',
  'services',
  'experts',
  'pros',
  'open now',
] as const;

export const REVIEW_TEXTS: Record<'positive' | 'neutral' | 'negative', readonly string[]> = {
  positive: [
    'Fast, friendly and fair. Would hire again.',
    'Showed up on time and fixed everything in an hour.',
    'Great communication from start to finish.',
    'Honest pricing and very clean work.',
    'They went above and beyond. Highly recommend!',
  ],
  neutral: [
    'Job got done, but scheduling took a while.',
    'Decent work. Price was about what I expected.',
    'Okay experience overall, nothing special.',
  ],
  negative: [
    'Missed the appointment twice and never called.',
    'Overcharged for a simple fix.',
    'The problem came back a week later.',
    'Rude on the phone and slow to respond.',
  ],
};

export const REVIEW_SOURCES = ['google', 'yelp', 'facebook', 'bbb'] as const;

export const LINK_DOMAINS = [
  'localnews.example',
  'cityguide.example',
  'homeadvisor.example',
  'diyforum.example',
  'blogger.example',
  'chamber.example',
  'wikiwiki.example',
  'reddit-like.example',
  'yellowpages.example',
  'newsroom.example',
  'bestof.example',
  'homeowners.example',
  'contractors.example',
  'review-site.example',
  'magazine.example',
] as const;

export const SOURCE_TYPES = ['blog', 'directory', 'news', 'forum', 'social'] as const;

export const DIRECTORIES = [
  'Google Business Profile',
  'Yelp',
  'Bing Places',
  'Apple Maps',
  'Facebook',
  'Yellow Pages',
  'BBB',
  'Angi',
  'Foursquare',
  'Nextdoor',
  'Manta',
  'MapQuest',
] as const;

export const BLOG_CATEGORIES = ['Guides', 'News', 'Tips', 'Case Studies', 'Pricing', 'FAQ'] as const;

export const INTEGRATIONS = [
  'Google Search Console',
  'Google Analytics',
  'Google Business Profile',
  'WordPress',
  'CallRail-like',
  'Mailgun',
  'Slack',
] as const;

export const LLM_ENGINES = ['chatgpt', 'gemini', 'perplexity', 'copilot'] as const;

/**
 * Hostile strings for the small clients: Slack mrkdwn control sequences, a forged link and an HTML entity,
 * so the bot's escaping is tested against data, not only against its own fixtures.
 */
export const NASTY = {
  reviewText:
    'Great job &amp; fair price <!channel> see <https://evil.example|click here> for *free* stuff <@U0123ABCD>',
  reviewAuthor: 'Tom & Jerry <script>',
  blogTitle: 'Top 5 tips <!here> & tricks for <b>2025</b>',
  taskTitle: 'Fix <title> & meta tags on <https://evil.example|homepage>',
  keyword: 'best <dentist> & co',
} as const;
