// The typed plan tree. Plain data (no parent links, no TS nodes) so it serialises as-is for plan.show.
import type { PlanPropValue } from '../../shared/api/plan'

/** 1-based line and column (UTF-16 code units), plus the 0-based offset for slicing. */
export interface Position {
  line: number
  column: number
  offset: number
}

/** A prop's value as the parser reads it (`expression`: source text it cannot evaluate without running code). */
export type PropValue = PlanPropValue

export interface PlanProp {
  name: string
  value: PropValue
  pos: Position
  end: Position
}

export const markerKinds = ['ADD', 'MODIFY', 'FIX', 'REMOVE', 'NO_CHANGES', 'PRESERVED'] as const
export type MarkerKind = (typeof markerKinds)[number]

export interface Marker {
  kind: MarkerKind
  /** Task number; null for PRESERVED, which carries none. */
  task: number | null
  description: string
  /** Items to add (ADD) or items that exist (PRESERVED "EXISTING 8 flavors"); null when none is given. */
  count: number | null
  /** The noun the count refers to ("flavors"), for gate messages. */
  noun: string | null
}

/** A JSX comment inside an element. `marker` is set when it is a well-formed marker, `problem` when malformed. */
export interface PlanComment {
  text: string
  pos: Position
  end: Position
  marker: Marker | null
  problem: string | null
}

export interface PlanElement {
  tag: string
  props: PlanProp[]
  children: PlanElement[]
  comments: PlanComment[]
  /** Free text children (meaningful for <Custom>), whitespace collapsed. */
  text: string
  pos: Position
  end: Position
  /** Position of the tag name, where editors put squiggles. */
  tagPos: Position
  tagEnd: Position
}

export interface PlanSyntaxError {
  message: string
  pos: Position
}

export interface Plan {
  source: string
  /** The single <App> root, or null when there is none (see `roots` for what was found instead). */
  root: PlanElement | null
  /** Every top-level JSX tree found in the default export (more than one is a has-app-root failure). */
  roots: PlanElement[]
  errors: PlanSyntaxError[]
  /** Comments outside any element (file header, around the export). */
  looseComments: PlanComment[]
  /** Names imported from 'ralph-plan' (empty for the import-less form). */
  imports: string[]
  /** Where the default export (or the bare JSX statement) starts, for root-level messages. */
  rootPos: Position | null
  lineCount: number
}

export type Severity = 'failure' | 'warning'

export interface Finding {
  rule: string
  severity: Severity
  message: string
  line: number
  column: number
  endLine?: number
  endColumn?: number
}

export type GateSeverity = Severity | 'pass'

export interface GateResult {
  gate: string
  severity: GateSeverity
  message: string
  /** Project-relative path, or null for section-level results. */
  file: string | null
  /** Human label of the section: `landing › features (line 14)`. */
  section: string
}
