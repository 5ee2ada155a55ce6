// The same plan updated for task 3 ("refine ad copy, less generic more adult; two moods not working; add 2 more
// drinks for nighttime"). Markers say what the task may touch; the scope gates hold the build to them.
import { App, Theme, Typography, Animation, Rule, Screen, Nav, NavItem, Content, Section, Gumdrop, Slot, Action } from 'ralph-plan'

export default (
  <App name="VIBRANT ENERGY" description="Energy drink landing page">
    <Theme mood="industrial" seed={140} pattern="triadic" font="Space Grotesk" radius="sm">
      {/* TASK-3 [FIX]: theme toggle does not switch between the voltage and chrome moods */}
      {/* TASK-3 [MODIFY]: second mood becomes a nighttime aesthetic */}
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
          {/* TASK-3 [MODIFY]: refine copy — less generic, more adult, less Monster Energy */}
          <Slot name="headline" description="one line, confident, adult" />
          <Action trigger="Shop now" intent="primary" />
        </Section>

        <Section gumdrop="features" cols={5} files={['src/components/FlavorGrid.tsx', 'src/data/flavors.ts']}>
          {/* TASK-3 [ADD]: 2 nighttime drink flavors (Moonlit Calm, Deep Rest) */}
          {/* EXISTING 8 flavors PRESERVED — do not remove or convert */}
          <Gumdrop use="card" variant="flavor" />
        </Section>

        <Section gumdrop="cta" files={['src/components/Cta.tsx']}>
          {/* TASK-3 [MODIFY]: match the refined adult tone of the hero */}
        </Section>
      </Content>
    </Screen>

    <Screen name="store">
      {/* NO CHANGES for task-3 — preserve as-is */}
      <Content>
        <Section gumdrop="grid-list" files={['src/pages/Store.tsx']} />
      </Content>
    </Screen>
  </App>
)
