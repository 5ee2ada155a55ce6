import * as RadixTabs from '@radix-ui/react-tabs'
import type { ComponentProps } from 'react'
import { cx } from './cx'

/** Radix tabs: arrow keys move between tabs and select them, Home/End jump to the ends. */
export const Tabs = RadixTabs.Root

export function TabsList({
  label,
  className,
  ...rest
}: Omit<ComponentProps<typeof RadixTabs.List>, 'aria-label'> & { label: string }) {
  return <RadixTabs.List aria-label={label} className={cx('tabs-list', className)} {...rest} />
}

export function TabsTrigger({ className, ...rest }: ComponentProps<typeof RadixTabs.Trigger>) {
  return <RadixTabs.Trigger className={cx('tabs-trigger', className)} {...rest} />
}

export function TabsContent({ className, ...rest }: ComponentProps<typeof RadixTabs.Content>) {
  return <RadixTabs.Content className={cx('tabs-content', className)} {...rest} />
}
