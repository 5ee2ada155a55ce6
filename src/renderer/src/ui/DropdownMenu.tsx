import * as RadixMenu from '@radix-ui/react-dropdown-menu'
import type { ComponentProps } from 'react'
import { cx } from './cx'

export const Menu = RadixMenu.Root
export const MenuTrigger = RadixMenu.Trigger

export function MenuContent({ className, ...rest }: ComponentProps<typeof RadixMenu.Content>) {
  return (
    <RadixMenu.Portal>
      <RadixMenu.Content className={cx('menu', className)} sideOffset={4} align="end" {...rest} />
    </RadixMenu.Portal>
  )
}

export function MenuItem({
  className,
  tone,
  ...rest
}: ComponentProps<typeof RadixMenu.Item> & { tone?: 'danger' }) {
  return (
    <RadixMenu.Item
      className={cx('menu-item', tone === 'danger' && 'menu-item-danger', className)}
      {...rest}
    />
  )
}

export const MenuSeparator = () => <RadixMenu.Separator className="menu-separator" />
