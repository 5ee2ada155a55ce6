// A plan that breaks every validation rule that can fail alongside the others (with the current task = 3 and
// .ralph/gumdrops.json listing hero, grid-list, cta). parseable, has-app-root and has-screens each stop the rest,
// so syntax-error.tsx, no-app-root.tsx and no-screens.tsx show those. Deliberately invalid: not type-checked.
export default (
  <App description="no name">
    {/* TASK-3 [REMOVE]: the blog */}
    <Screen name="home">
      <Content>
        <Section files={['src/Hero.tsx']} />
        <Section gumdrop="grid-list" files={['src/A.tsx']} />
        <Section gumdrop="gird-list" files={['src/B.tsx']} />
        <Sektion gumdrop="cta" />
        <Section gumdrop="grid-list" files={['src/C.tsx']}>
          {/* TASK-3 [ADDD]: 2 more */}
          {/* TASK-2 [ADD]: a stale marker from the previous task */}
          {/* TASK-3 [ADD]: 2 cards */}
        </Section>
        <Section gumdrop="grid-list" files={['src/D.tsx']} />
        <Section gumdrop="grid-list">
          {/* TASK-3 [MODIFY]: tighten spacing */}
        </Section>
      </Content>
    </Screen>
    <Screen name="empty" />
    <Data>
      <Endpoint resource="orders" pattern="crud" />
    </Data>
  </App>
)
