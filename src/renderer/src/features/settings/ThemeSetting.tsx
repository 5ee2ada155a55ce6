import { Monitor, Moon, Sun } from 'lucide-react'
import { useTheme, type ThemePreference } from '../../app/theme'

const options: { value: ThemePreference; label: string; icon: typeof Sun }[] = [
  { value: 'system', label: 'System', icon: Monitor },
  { value: 'light', label: 'Light', icon: Sun },
  { value: 'dark', label: 'Dark', icon: Moon },
]

/** System / Light / Dark, applied at once and kept in this browser or app profile. */
export function ThemeSetting() {
  const preference = useTheme((s) => s.preference)
  const setPreference = useTheme((s) => s.setPreference)
  return (
    <fieldset className="segmented" role="radiogroup" aria-label="Theme">
      {options.map(({ value, label, icon: Icon }) => (
        <label key={value} className="segmented-option">
          <input
            type="radio"
            name="theme"
            value={value}
            checked={preference === value}
            onChange={() => setPreference(value)}
          />
          <Icon size={15} aria-hidden />
          {label}
        </label>
      ))}
    </fieldset>
  )
}
