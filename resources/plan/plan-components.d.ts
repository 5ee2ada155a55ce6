/**
 * Typings for Ralph plan files (.ralph/plan.tsx), so editors and `tsc` type-check plans and offer completion.
 * A plan is read by the harness, never executed: these declarations describe the vocabulary, nothing more.
 *
 * Both forms work: `import { App, Screen, … } from 'ralph-plan'`, or no import at all (the components are also
 * declared globally). Compile with `"jsx": "preserve"` and without React's JSX types.
 */

declare namespace RalphPlan {
  /** What a plan component evaluates to. Opaque: plans are never rendered. */
  interface Element {
    readonly __ralphPlanElement?: true
  }
  type Node = Element | string | number | boolean | null | undefined | readonly Node[]
  type Children = Node | readonly Node[]

  /** Kebab-case recipe names; any other kebab-case name is allowed (a project may list its own). */
  type GumdropName =
    | 'hero'
    | 'features'
    | 'grid-list'
    | 'cta'
    | 'form-layout'
    | 'search-results'
    | 'pricing'
    | 'testimonials'
    | 'faq'
    | 'footer'
    | 'header'
    | 'stats'
    | 'gallery'
    | 'logo-cloud'
    | 'newsletter'
    | 'data-table'
    | 'detail-view'
    | 'empty-state'
    | 'settings'
    | 'sidebar-nav'
    | 'top-nav'
    | 'card-grid'
    | 'timeline'
    | 'contact'
    | 'team'
    | 'blog-list'
    | (string & {})

  type Intent = 'primary' | 'secondary' | 'danger' | 'ghost' | (string & {})

  interface AppProps {
    /** Product name. */
    name: string
    description?: string
    children?: Children
  }
  interface ThemeProps {
    mood?: string
    /** Colour seed (hue, 0–360). */
    seed?: number
    /** Colour harmony: triadic, analogous, complementary … */
    pattern?: string
    font?: string
    monoFont?: string
    shadowProfile?: string
    radius?: string
    philosophy?: string
    children?: Children
  }
  interface TypographyProps {
    hero?: string
    titles?: string
    labels?: string
    body?: string
    code?: string
  }
  interface AnimationProps {
    hover?: string
    cards?: string
    pages?: string
    micro?: string
    reveals?: string
  }
  /** Exactly one of no, always, prefer. */
  type RuleProps =
    | { no: string; always?: never; prefer?: never }
    | { always: string; no?: never; prefer?: never }
    | { prefer: string; no?: never; always?: never }
  interface ScreenProps {
    name: string
    layout?: string
    gumdrop?: GumdropName
    children?: Children
  }
  interface NavProps {
    gumdrop?: GumdropName
    children?: Children
  }
  interface NavItemProps {
    label: string
    icon?: string
    to?: string
  }
  interface ContentProps {
    className?: string
    children?: Children
  }
  interface AsideProps {
    className?: string
    children?: Children
  }
  interface SectionProps {
    /** The recipe this section follows. */
    gumdrop: GumdropName
    variant?: string
    cols?: number
    span?: number
    source?: string
    className?: string
    /** Project-relative source files this section lives in; the scope gates read them. */
    files: readonly string[]
    /** Change markers ({/* TASK-3 [ADD]: … *\/}) and Gumdrop/Field/Column/Action/Slot children. */
    children?: Children
  }
  interface GumdropProps {
    use: GumdropName
    variant?: string
    source?: string
    label?: string
    span?: number
  }
  interface FieldProps {
    name: string
    type?: string
    required?: boolean
    options?: readonly string[]
    range?: readonly number[]
    placeholder?: string
  }
  interface ColumnProps {
    field: string
    sortable?: boolean
    filterable?: boolean
    format?: string
    width?: string | number
  }
  interface ActionProps {
    trigger: string
    gumdrop?: GumdropName
    intent?: Intent
    hotkey?: string
  }
  interface SlotProps {
    name: string
    description?: string
  }
  interface CustomProps {
    intent: string
    /** Free text describing the custom part. */
    children?: Children
  }
  interface DataProps {
    children?: Children
  }
  interface SchemaProps {
    name: string
    /** Field name → type name. */
    fields: Readonly<Record<string, string>>
  }
  interface EndpointProps {
    resource: string
    pattern: 'crud' | 'readonly' | 'custom'
    auth?: string
  }

  type Component<P> = (props: P) => Element
}

declare namespace JSX {
  type Element = RalphPlan.Element
  interface ElementChildrenAttribute {
    children: {}
  }
  // Plans use only the components below; lower-case HTML tags are not part of the language.
  interface IntrinsicElements {}
}

declare const App: RalphPlan.Component<RalphPlan.AppProps>
declare const Theme: RalphPlan.Component<RalphPlan.ThemeProps>
declare const Typography: RalphPlan.Component<RalphPlan.TypographyProps>
declare const Animation: RalphPlan.Component<RalphPlan.AnimationProps>
declare const Rule: RalphPlan.Component<RalphPlan.RuleProps>
declare const Screen: RalphPlan.Component<RalphPlan.ScreenProps>
declare const Nav: RalphPlan.Component<RalphPlan.NavProps>
declare const NavItem: RalphPlan.Component<RalphPlan.NavItemProps>
declare const Content: RalphPlan.Component<RalphPlan.ContentProps>
declare const Aside: RalphPlan.Component<RalphPlan.AsideProps>
declare const Section: RalphPlan.Component<RalphPlan.SectionProps>
declare const Gumdrop: RalphPlan.Component<RalphPlan.GumdropProps>
declare const Field: RalphPlan.Component<RalphPlan.FieldProps>
declare const Column: RalphPlan.Component<RalphPlan.ColumnProps>
declare const Action: RalphPlan.Component<RalphPlan.ActionProps>
declare const Slot: RalphPlan.Component<RalphPlan.SlotProps>
declare const Custom: RalphPlan.Component<RalphPlan.CustomProps>
declare const Data: RalphPlan.Component<RalphPlan.DataProps>
declare const Schema: RalphPlan.Component<RalphPlan.SchemaProps>
declare const Endpoint: RalphPlan.Component<RalphPlan.EndpointProps>

declare module 'ralph-plan' {
  export type Element = RalphPlan.Element
  export type GumdropName = RalphPlan.GumdropName
  export type AppProps = RalphPlan.AppProps
  export type ThemeProps = RalphPlan.ThemeProps
  export type SectionProps = RalphPlan.SectionProps
  export const App: RalphPlan.Component<RalphPlan.AppProps>
  export const Theme: RalphPlan.Component<RalphPlan.ThemeProps>
  export const Typography: RalphPlan.Component<RalphPlan.TypographyProps>
  export const Animation: RalphPlan.Component<RalphPlan.AnimationProps>
  export const Rule: RalphPlan.Component<RalphPlan.RuleProps>
  export const Screen: RalphPlan.Component<RalphPlan.ScreenProps>
  export const Nav: RalphPlan.Component<RalphPlan.NavProps>
  export const NavItem: RalphPlan.Component<RalphPlan.NavItemProps>
  export const Content: RalphPlan.Component<RalphPlan.ContentProps>
  export const Aside: RalphPlan.Component<RalphPlan.AsideProps>
  export const Section: RalphPlan.Component<RalphPlan.SectionProps>
  export const Gumdrop: RalphPlan.Component<RalphPlan.GumdropProps>
  export const Field: RalphPlan.Component<RalphPlan.FieldProps>
  export const Column: RalphPlan.Component<RalphPlan.ColumnProps>
  export const Action: RalphPlan.Component<RalphPlan.ActionProps>
  export const Slot: RalphPlan.Component<RalphPlan.SlotProps>
  export const Custom: RalphPlan.Component<RalphPlan.CustomProps>
  export const Data: RalphPlan.Component<RalphPlan.DataProps>
  export const Schema: RalphPlan.Component<RalphPlan.SchemaProps>
  export const Endpoint: RalphPlan.Component<RalphPlan.EndpointProps>
}
