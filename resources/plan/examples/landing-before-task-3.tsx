// VIBRANT ENERGY landing page as it stood after task 2: eight flavors in a 4×2 grid.
import { App, Theme, Typography, Animation, Rule, Screen, Nav, NavItem, Content, Section, Gumdrop, Slot, Action } from 'ralph-plan'

export default (
  <App name="VIBRANT ENERGY" description="Energy drink landing page">
    <Theme mood="industrial" seed={140} pattern="triadic" font="Space Grotesk" radius="sm">
      <Typography hero="4xl bold white tight" labels="xs uppercase tracking-widest" />
      <Animation hover="200ms spring" cards="300ms easeOutCubic" />
      <Rule no="hardcoded colors" />
      <Rule always="all colors via CSS custom properties" />
    </Theme>

    <Screen name="landing" layout="full-bleed">
      <Nav gumdrop="top-nav">
        <NavItem label="Flavors" to="#flavors" />
        <NavItem label="Store" to="/store" />
      </Nav>
      <Content>
        <Section gumdrop="hero" files={['src/components/Hero.tsx']}>
          <Slot name="headline" description="one line, loud" />
          <Action trigger="Shop now" intent="primary" />
        </Section>

        <Section gumdrop="features" cols={4} files={['src/components/FlavorGrid.tsx', 'src/data/flavors.ts']}>
          <Gumdrop use="card" variant="flavor" />
        </Section>

        <Section gumdrop="cta" files={['src/components/Cta.tsx']} />
      </Content>
    </Screen>

    <Screen name="store">
      <Content>
        <Section gumdrop="grid-list" files={['src/pages/Store.tsx']} />
      </Content>
    </Screen>
  </App>
)
