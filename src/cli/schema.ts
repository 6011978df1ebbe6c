import { FILE_SCHEMA_NAMES, isFileSchemaName, jsonSchemaOf, jsonSchemaText } from './file-schemas.js';
import { UsageError, type CommandDescriptor } from './command.js';

export const schemaCommand: CommandDescriptor = {
  name: 'schema',
  summary: 'Print the JSON Schema of a config, theme or agent profile file, for editors.',
  usage: FILE_SCHEMA_NAMES.join('|'),
  minArgs: 1,
  maxArgs: 1,
  flags: [],
  details:
    'Generated from the schemas swb parses these files with, so an editor judges a file as swb will. ' +
    'Save it beside the file and name it there: swb schema config > switchboard.schema.json, then "$schema": "./switchboard.schema.json". ' +
    'The same schemas ship in the package\'s schemas/ folder.',
  async run(ctx) {
    const name = ctx.args[0]!;
    if (!isFileSchemaName(name)) throw new UsageError(`${JSON.stringify(name)}: expected ${FILE_SCHEMA_NAMES.join(', ')}`);
    ctx.result(jsonSchemaOf(name));
    ctx.print(jsonSchemaText(name).trimEnd());
    return 0;
  },
};
