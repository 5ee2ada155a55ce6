// Fails `parseable`: the Section is never closed. Not type-checked.
export default (
  <App name="Broken">
    <Screen name="home">
      <Content>
        <Section gumdrop="hero" files={['src/Hero.tsx']}>
      </Content>
    </Screen>
  </App>
)
