// "Update prices from the internet" (off by default): genai-prices' current data, downloaded from its published
// URL and kept in the app data folder, replaces the data bundled with this version, so models newer than the
// release (Codex's gpt-6.1-* defaults) get a price. Nothing is fetched while the setting is off.
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { REMOTE_DATA_JSON_URL, updatePrices, type Provider } from '@pydantic/genai-prices'
import { z } from 'zod'
import type { SettingsRepo } from '../store'
import { CATALOG_VENDORS, forgetCatalogLookups } from './catalog'

export const PRICE_UPDATES_KEY = 'llm.priceUpdates'
/** The file the downloaded data is kept in, in the app data folder. */
export const PRICES_DATA_FILE = 'prices-data.json'
/** The stored data is downloaded again when the app starts and it is older than this. */
export const PRICES_REFRESH_MS = 24 * 60 * 60_000

const settingSchema = z.object({ enabled: z.boolean() })

/** Where the data comes from: genai-prices' published file, or RALPH_PRICES_URL (a mirror, the tests' server). */
export function pricesUrl(env: NodeJS.ProcessEnv): string {
  return env.RALPH_PRICES_URL?.trim() || REMOTE_DATA_JSON_URL
}

export const pricesDataFile = (appDataDir: string) => join(appDataDir, PRICES_DATA_FILE)

export function priceUpdatesEnabled(settings: Pick<SettingsRepo, 'get'>): boolean {
  return settingSchema.safeParse(settings.get<unknown>(PRICE_UPDATES_KEY)).data?.enabled === true
}

export function setPriceUpdates(settings: Pick<SettingsRepo, 'set'>, enabled: boolean): void {
  settings.set(PRICE_UPDATES_KEY, { enabled })
}

/** How many models of the vendors Ralph prices from the catalog a data set holds. */
function hostedModels(providers: readonly Provider[]): number {
  return providers
    .filter((p) => (CATALOG_VENDORS as readonly string[]).includes(p.id))
    .reduce((n, p) => n + p.models.length, 0)
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/** A rate: USD per 1M tokens, or a tiered one (`{ base, tiers: [{ start, price }] }`). */
function rateOk(v: unknown): boolean {
  if (v === undefined) return true
  if (typeof v === 'number') return Number.isFinite(v) && v >= 0
  return (
    isRecord(v) &&
    rateOk(v.base) &&
    Array.isArray(v.tiers) &&
    v.tiers.every((t) => isRecord(t) && typeof t.start === 'number' && rateOk(t.price))
  )
}

/** A model's prices: its rates, or rates under constraints (`[{ constraint, prices }]`). */
function pricesOk(prices: unknown): boolean {
  if (Array.isArray(prices))
    return prices.length > 0 && prices.every((p) => isRecord(p) && pricesOk(p.prices))
  return isRecord(prices) && Object.values(prices).every(rateOk)
}

/**
 * What makes `data` unfit to replace the catalog's, checked before genai-prices takes it (it checks the rates'
 * shapes, not that the file is whole): a list of providers with every hosted vendor in it, each model named, matched
 * and priced.
 */
function dataProblem(data: unknown): string | null {
  if (
    !Array.isArray(data) ||
    !data.every((p) => isRecord(p) && typeof p.id === 'string' && Array.isArray(p.models))
  )
    return 'is not a list of providers'
  const providers = data as { id: string; models: unknown[] }[]
  for (const vendor of CATALOG_VENDORS) {
    const found = providers.find((p) => p.id === vendor)
    if (!found || found.models.length === 0) return `has no models of ${vendor}`
    const bad = found.models.find(
      (m) => !isRecord(m) || typeof m.id !== 'string' || !isRecord(m.match) || !pricesOk(m.prices),
    )
    if (bad !== undefined) {
      const id = isRecord(bad) && typeof bad.id === 'string' ? ` (${bad.id})` : ''
      return `has a ${vendor} model${id} without a match rule or with prices that are not rates`
    }
  }
  return null
}

/**
 * Makes `text` (genai-prices' data: a JSON array of providers) the catalog's data: checked first (dataProblem) and by
 * genai-prices as it takes it; a file refused leaves the current data as it was. Returns how many hosted models it prices.
 */
export function applyCatalogData(text: string, source: string): number {
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch (err) {
    throw new Error(
      `The price data from ${source} is not JSON (${(err as Error).message}): the prices stay as they were.`,
    )
  }
  const wrong = dataProblem(data)
  if (wrong) throw new Error(`The price data from ${source} ${wrong}: the prices stay as they were.`)
  const providers = data as Provider[]
  try {
    updatePrices(({ setProviderData }) => setProviderData(providers))
  } catch (err) {
    throw new Error(
      `The price data from ${source} was refused (${(err as Error).message}): the prices stay as they were.`,
    )
  }
  forgetCatalogLookups()
  return hostedModels(providers)
}

export interface CatalogDataState {
  /** When the kept data was downloaded (ms since the epoch). */
  fetchedAt: number
  /** How many hosted models it prices. */
  models: number
}

/** The data kept in the app data folder, made the catalog's; null when none was downloaded yet. */
export function loadStoredCatalog(appDataDir: string): CatalogDataState | null {
  const file = pricesDataFile(appDataDir)
  if (!existsSync(file)) return null
  const models = applyCatalogData(readFileSync(file, 'utf8'), file)
  return { fetchedAt: statSync(file).mtimeMs, models }
}

/** When the kept data was downloaded, or null. */
export function storedCatalogAge(appDataDir: string): number | null {
  const file = pricesDataFile(appDataDir)
  return existsSync(file) ? statSync(file).mtimeMs : null
}

/**
 * Downloads the data from `url`, makes it the catalog's (the next pricing uses it) and keeps it in the app data
 * folder (written whole, then renamed, so a crash never leaves half a file). A failed download or a file
 * genai-prices refuses changes nothing and says why.
 */
export async function refreshCatalog(input: {
  appDataDir: string
  url: string
  fetch?: typeof fetch
  timeoutMs?: number
}): Promise<CatalogDataState> {
  const get = input.fetch ?? fetch
  let text: string
  try {
    const res = await get(input.url, { signal: AbortSignal.timeout(input.timeoutMs ?? 30_000) })
    if (!res.ok) throw new Error(`HTTP ${res.status}`)
    text = await res.text()
  } catch (err) {
    throw new Error(
      `Could not download prices from ${input.url}: ${(err as Error).message}. The prices stay as they were.`,
    )
  }
  const models = applyCatalogData(text, input.url)
  const file = pricesDataFile(input.appDataDir)
  writeFileSync(`${file}.tmp`, text)
  renameSync(`${file}.tmp`, file)
  return { fetchedAt: statSync(file).mtimeMs, models }
}

/** Where the kept data is applied and refreshed from: the host's settings, folder and environment. */
export interface PriceUpdatesHost {
  settings: Pick<SettingsRepo, 'get' | 'set'>
  appDataDir: string
  env: NodeJS.ProcessEnv
}

/** With the setting on, the kept data replaces the bundled one (each process: the app, every `ralph` command). */
export function applyStoredPrices(host: PriceUpdatesHost): CatalogDataState | null {
  return priceUpdatesEnabled(host.settings) ? loadStoredCatalog(host.appDataDir) : null
}

/** With the setting on, whether the app should download the data again now: none kept, or older than a day. */
export function pricesAreStale(host: PriceUpdatesHost, now = Date.now()): boolean {
  if (!priceUpdatesEnabled(host.settings)) return false
  const at = storedCatalogAge(host.appDataDir)
  return at === null || now - at >= PRICES_REFRESH_MS
}
