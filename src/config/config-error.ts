// The one error value src/config hands back: a stable code and a sentence naming the file and field.
export interface ConfigError {
  code: 'CONFIG_INVALID';
  message: string;
}

export function configError(message: string): ConfigError {
  return { code: 'CONFIG_INVALID', message };
}
