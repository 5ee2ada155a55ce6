// Variables that make a program load or run code other than its own: the dynamic loader's, libc's, the shells'
// start-up files and the language runtimes' preload options. A project's `.mcp.json` may not set them (its env applies
// inside the sandbox only, and these would still turn a harmless command such as `npx` into the project's code under
// a name the user approved for something else).
const PREFIXES = ['LD_', 'DYLD_', 'BASH_FUNC_']
const NAMES = new Set([
  // glibc: conversion modules, locale data and tunables are loaded from these paths.
  'GCONV_PATH',
  'LOCPATH',
  'GLIBC_TUNABLES',
  'HOSTALIASES',
  // Shells: files sourced at start, options and traps run by non-interactive shells.
  'BASH_ENV',
  'ENV',
  'SHELLOPTS',
  'BASHOPTS',
  'PS4',
  'PROMPT_COMMAND',
  'IFS',
  // Node, Python, Perl, Ruby, the JVM: code preloaded or modules resolved before the program's own.
  'NODE_OPTIONS',
  'NODE_PATH',
  'NODE_REPL_EXTERNAL_MODULE',
  'ELECTRON_RUN_AS_NODE',
  'PYTHONSTARTUP',
  'PYTHONPATH',
  'PYTHONHOME',
  'PYTHONUSERBASE',
  'PERL5OPT',
  'PERL5LIB',
  'PERLLIB',
  'PERL5DB',
  'RUBYOPT',
  'RUBYLIB',
  'JAVA_TOOL_OPTIONS',
  '_JAVA_OPTIONS',
  'JDK_JAVA_OPTIONS',
  'CLASSPATH',
])

/** The names among `names` a project may not set (compared case-insensitively), in their given spelling. */
export function loaderVariables(names: readonly string[]): string[] {
  return names.filter((n) => {
    const upper = n.toUpperCase()
    return NAMES.has(upper) || PREFIXES.some((p) => upper.startsWith(p))
  })
}
