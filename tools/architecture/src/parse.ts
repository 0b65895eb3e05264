/**
 * One source file through the TypeScript parser (syntax only, no type checking): the modules it imports,
 * with their lines and whether only types are imported, and its functions with their lengths.
 */
import ts from 'typescript';

export interface ImportSite {
  /** The module specifier as written: `@x/cbc`, `./pump.js`. */
  specifier: string;
  /** 1-based. */
  line: number;
  /** `import type`, `export type`, every named binding `type`, or `typeof import(…)`: gone at run time. */
  typeOnly: boolean;
}

export interface FunctionSite {
  /** The function's name, or where it stands: `validate`, `Volume.read`, `(arrow in options)`. */
  name: string;
  /** 1-based, the line of its first token (comments before it excluded). */
  line: number;
  /** From its first line to its last, both included. */
  lines: number;
}

export interface Parsed {
  imports: ImportSite[];
  functions: FunctionSite[];
  /** The file's head says it is generated (`// Code generated …`, `@generated`, `DO NOT EDIT`). */
  generated: boolean;
}

const GENERATED = /\bCode generated\b|@generated\b|\bDO NOT EDIT\b/i;

/** The head of a file, its first five lines, says whether a generator wrote it. */
export function isGenerated(text: string): boolean {
  return GENERATED.test(text.split('\n', 5).join('\n'));
}

function scriptKind(file: string): ts.ScriptKind {
  if (file.endsWith('.tsx')) return ts.ScriptKind.TSX;
  if (file.endsWith('.jsx')) return ts.ScriptKind.JSX;
  return /\.[cm]?js$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
}

function typeOnlyImport(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (!clause) return false; // import './side-effect.js'
  if (clause.isTypeOnly) return true;
  const named = clause.namedBindings;
  return (
    !clause.name &&
    named !== undefined &&
    ts.isNamedImports(named) &&
    named.elements.length > 0 &&
    named.elements.every((e) => e.isTypeOnly)
  );
}

function typeOnlyExport(node: ts.ExportDeclaration): boolean {
  if (node.isTypeOnly) return true;
  const clause = node.exportClause;
  return (
    clause !== undefined &&
    ts.isNamedExports(clause) &&
    clause.elements.length > 0 &&
    clause.elements.every((e) => e.isTypeOnly)
  );
}

/** The specifier a node imports, and whether only types: undefined when the node imports nothing. */
function importOf(node: ts.Node): { specifier: string; typeOnly: boolean } | undefined {
  if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
    return { specifier: node.moduleSpecifier.text, typeOnly: typeOnlyImport(node) };
  }
  if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
    return { specifier: node.moduleSpecifier.text, typeOnly: typeOnlyExport(node) };
  }
  if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
    const e = node.moduleReference.expression;
    if (ts.isStringLiteral(e)) return { specifier: e.text, typeOnly: node.isTypeOnly };
  }
  if (ts.isCallExpression(node) && node.arguments.length >= 1) {
    const [arg] = node.arguments;
    const dynamic = node.expression.kind === ts.SyntaxKind.ImportKeyword;
    const required = ts.isIdentifier(node.expression) && node.expression.text === 'require';
    if ((dynamic || required) && ts.isStringLiteralLike(arg)) return { specifier: arg.text, typeOnly: false };
  }
  if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
    return { specifier: node.argument.literal.text, typeOnly: true };
  }
  return undefined;
}

type FunctionLike =
  | ts.FunctionDeclaration
  | ts.MethodDeclaration
  | ts.ArrowFunction
  | ts.FunctionExpression
  | ts.ConstructorDeclaration
  | ts.GetAccessorDeclaration
  | ts.SetAccessorDeclaration;

function isFunctionLike(node: ts.Node): node is FunctionLike {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isArrowFunction(node) ||
    ts.isFunctionExpression(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  );
}

const nameText = (name: ts.Node | undefined, sf: ts.SourceFile): string | undefined =>
  name &&
  (ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name))
    ? name.text
    : name?.getText(sf);

/** A readable name: the declared one, the variable or property it is assigned to, or its context. */
function functionName(node: FunctionLike, sf: ts.SourceFile): string {
  const owner = node.parent && (ts.isClassLike(node.parent) ? nameText(node.parent.name, sf) : undefined);
  if (ts.isConstructorDeclaration(node)) return `${owner ?? '(class)'}.constructor`;
  const own = 'name' in node ? nameText(node.name, sf) : undefined;
  if (own) return owner ? `${owner}.${own}` : own;
  const parent = node.parent;
  if (
    parent &&
    (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
  ) {
    const assigned = nameText(parent.name, sf);
    if (assigned) return assigned;
  }
  const kind = ts.isArrowFunction(node) ? 'arrow' : 'function';
  if (parent && ts.isCallExpression(parent)) return `(${kind} passed to ${parent.expression.getText(sf).slice(0, 40)})`;
  return `(${kind})`;
}

/** Parses `text` (the file `file`, whose extension picks TypeScript, TSX or JavaScript). */
export function parseSource(file: string, text: string): Parsed {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, scriptKind(file));
  const imports: ImportSite[] = [];
  const functions: FunctionSite[] = [];
  const lineOf = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const visit = (node: ts.Node): void => {
    const found = importOf(node);
    if (found) imports.push({ ...found, line: lineOf(node.getStart(sf)) });
    if (isFunctionLike(node) && node.body) {
      const line = lineOf(node.getStart(sf));
      functions.push({ name: functionName(node, sf), line, lines: lineOf(node.getEnd()) - line + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return { imports, functions, generated: isGenerated(text) };
}
