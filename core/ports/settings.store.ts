/** Small named values the service keeps across restarts (the clock offset, the generated admin token). */
export interface SettingsStore {
  get(key: string): Promise<string | null>;
  set(key: string, value: string): Promise<void>;
}
