// Small plans and projects for the loop tests.
export const simplePlan = (extra = '') => `export default (
  <App name="Notes">
    <Theme mood="calm" />
    <Screen name="home">
      <Content>
        <Section gumdrop="hero" files={['src/hero.ts']}>${extra}
        </Section>
      </Content>
    </Screen>
  </App>
)
`

export const invalidPlan = `export default (
  <App name="Notes">
    <Screen name="home">
      <Content>
        <Section files={['src/hero.ts']} />
      </Content>
    </Screen>
  </App>
)
`

const flavorNames = ['Volt', 'Surge', 'Blaze', 'Frost', 'Pulse', 'Nova', 'Rush', 'Spark']

export const flavorsFile = (names: string[]) =>
  `export const flavors = [\n${names.map((n) => `  { name: '${n}', kick: 'high' },`).join('\n')}\n]\n`

export const eightFlavors = flavorsFile(flavorNames)

export const flavorPlan = (markers: string) => `export default (
  <App name="VIBRANT ENERGY">
    <Theme mood="industrial" />
    <Screen name="landing">
      <Content>
        <Section gumdrop="features" files={['src/flavors.ts']}>
          ${markers}
          <Gumdrop use="card" />
        </Section>
      </Content>
    </Screen>
  </App>
)
`

export const flavors = {
  original: flavorNames,
  // Converted four existing flavors instead of adding: the count stays 8.
  converted: ['Moonlit Calm', 'Deep Rest', 'Night Owl', 'Dusk', ...flavorNames.slice(4)],
  added: [...flavorNames, 'Moonlit Calm', 'Deep Rest'],
}

/** The events of a task that writes a plan in iteration 1, flips to BUILD, builds, and passes three gates. */
export const planThenBuildEvents = [
  'task.started',
  'snapshot.created',
  'task.parsed',
  'iteration.started',
  'tool.called',
  'phase.changed',
  'iteration.started',
  'tool.called',
  'tool.called',
  'gate.result',
  'gate.result',
  'gate.result',
  'snapshot.created',
  'task.completed',
]
