import type { TechniqueMode } from '../../shared/brainstorm'

/** Seed 004's technique library, by name only (descriptions stay out of the prompt: context budget). */
export const techniqueLibrary: Record<string, string[]> = {
  structured: [
    'SCAMPER',
    'Six Thinking Hats',
    'Mind Mapping',
    'Resource Constraints',
    'Decision Tree',
    'Solution Matrix',
    'Trait Transfer',
  ],
  creative: [
    'What-If Scenarios',
    'Analogical Thinking',
    'Reversal/Inversion',
    'First Principles',
    'Forced Relationships',
    'Time Shifting',
    'Metaphor Mapping',
    'Cross-Pollination',
    'Concept Blending',
    'Reverse Brainstorming',
    'Sensory Exploration',
  ],
  collaborative: [
    'Yes-And Building',
    'Brain Writing',
    'Random Stimulation',
    'Role Playing',
    'Ideation Relay',
  ],
  deep: [
    'Five Whys',
    'Morphological Analysis',
    'Provocation',
    'Assumption Reversal',
    'Question Storming',
    'Constraint Mapping',
    'Failure Analysis',
    'Emergent Thinking',
  ],
  theatrical: [
    'Time Travel Talk Show',
    'Alien Anthropologist',
    'Dream Fusion Lab',
    'Emotion Orchestra',
    'Parallel Universe Cafe',
    'Persona Journey',
  ],
  wild: [
    'Chaos Engineering',
    'Anti-Solution',
    'Quantum Superposition',
    'Elemental Forces',
    'Pirate Code',
    'Zombie Apocalypse',
  ],
  introspective: [
    'Inner Child Conference',
    'Shadow Work Mining',
    'Values Archaeology',
    'Future Self Interview',
    'Permission Giving',
  ],
  biomimetic: ["Nature's Solutions", 'Ecosystem Thinking', 'Evolutionary Pressure'],
  quantum: ['Observer Effect', 'Entanglement Thinking', 'Superposition Collapse'],
  cultural: ['Indigenous Wisdom', 'Fusion Cuisine', 'Ritual Innovation', 'Mythic Frameworks'],
}

export const techniqueCategories = Object.keys(techniqueLibrary)

export const approachOptions: { value: TechniqueMode; label: string }[] = [
  { value: 'user-selected', label: 'User-selected: browse the technique library and pick' },
  { value: 'ai-recommended', label: 'AI-recommended: a sequence picked for this session' },
  { value: 'random', label: 'Random: shuffle techniques to break habits' },
  { value: 'progressive', label: 'Progressive: divergent, then patterns, refine, action' },
]

/** Exchanges spent on one lens before the harness rotates to the next (seed: 5–8). */
export const EXCHANGES_PER_LENS = 6

/**
 * 3–5 techniques for the session. The recommended and progressive sequences are fixed journeys from wide to
 * narrow; random draws with the injected `random` so tests can pin it.
 */
export function techniquePlan(mode: TechniqueMode, category?: string, random: () => number = Math.random) {
  switch (mode) {
    case 'ai-recommended':
      return ['What-If Scenarios', 'SCAMPER', 'Persona Journey', 'First Principles']
    case 'progressive':
      return ['Mind Mapping', 'Morphological Analysis', 'Six Thinking Hats', 'Decision Tree']
    case 'user-selected':
      return (techniqueLibrary[category ?? ''] ?? techniqueLibrary.creative!).slice(0, 4)
    case 'random': {
      const all = Object.values(techniqueLibrary).flat()
      const picked: string[] = []
      while (picked.length < 4) {
        const t = all[Math.floor(random() * all.length)]!
        if (!picked.includes(t)) picked.push(t)
      }
      return picked
    }
  }
}
