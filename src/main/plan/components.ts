// The component vocabulary of PLAN_LANGUAGE.md "Components": props, required props and allowed parents.
// resources/plan/plan-components.d.ts declares the same set for the editor; a test keeps the two in step.

export interface ComponentSpec {
  props: readonly string[]
  required: readonly string[]
  /** Allowed parent tags; null = root only. */
  parents: readonly string[] | null
}

const sectionParents = ['Content', 'Aside'] as const

export const components: Record<string, ComponentSpec> = {
  App: { props: ['name', 'description'], required: ['name'], parents: null },
  Theme: {
    props: ['mood', 'seed', 'pattern', 'font', 'monoFont', 'shadowProfile', 'radius', 'philosophy'],
    required: [],
    parents: ['App'],
  },
  Typography: { props: ['hero', 'titles', 'labels', 'body', 'code'], required: [], parents: ['Theme'] },
  Animation: { props: ['hover', 'cards', 'pages', 'micro', 'reveals'], required: [], parents: ['Theme'] },
  Rule: { props: ['no', 'always', 'prefer'], required: [], parents: ['Theme'] },
  Screen: { props: ['name', 'layout', 'gumdrop'], required: ['name'], parents: ['App'] },
  // A global Nav directly under App is common and harmless.
  Nav: { props: ['gumdrop'], required: [], parents: ['Screen', 'App'] },
  NavItem: { props: ['label', 'icon', 'to'], required: ['label'], parents: ['Nav'] },
  Content: { props: ['className'], required: [], parents: ['Screen'] },
  Aside: { props: ['className'], required: [], parents: ['Screen'] },
  Section: {
    props: ['gumdrop', 'variant', 'cols', 'span', 'source', 'className', 'files'],
    required: ['gumdrop', 'files'],
    parents: sectionParents,
  },
  Gumdrop: { props: ['use', 'variant', 'source', 'label', 'span'], required: ['use'], parents: ['Section'] },
  Field: {
    props: ['name', 'type', 'required', 'options', 'range', 'placeholder'],
    required: ['name'],
    parents: ['Section'],
  },
  Column: {
    props: ['field', 'sortable', 'filterable', 'format', 'width'],
    required: ['field'],
    parents: ['Section'],
  },
  Action: { props: ['trigger', 'gumdrop', 'intent', 'hotkey'], required: ['trigger'], parents: ['Section'] },
  Slot: { props: ['name', 'description'], required: ['name'], parents: ['Section'] },
  Custom: { props: ['intent'], required: ['intent'], parents: sectionParents },
  Data: { props: [], required: [], parents: ['App'] },
  Schema: { props: ['name', 'fields'], required: ['name', 'fields'], parents: ['Data'] },
  Endpoint: { props: ['resource', 'pattern', 'auth'], required: ['resource', 'pattern'], parents: ['Data'] },
}

export const componentNames = Object.keys(components)

export const endpointPatterns = ['crud', 'readonly', 'custom'] as const

/** Known recipe names, used for editor completion and suggestions when no gumdrops.json exists. */
export const commonGumdrops = [
  'hero',
  'features',
  'grid-list',
  'cta',
  'form-layout',
  'search-results',
  'pricing',
  'testimonials',
  'faq',
  'footer',
  'header',
  'stats',
  'gallery',
  'logo-cloud',
  'newsletter',
  'data-table',
  'detail-view',
  'empty-state',
  'settings',
  'sidebar-nav',
  'top-nav',
  'card-grid',
  'timeline',
  'contact',
  'team',
  'blog-list',
] as const
