// The layers of docs/architecture.md ("Layers"), checked by `npm run check:deps` (and by npm test).
// Each rule names a direction that must not exist; none has exceptions: code that would need one
// moves to the layer it belongs to.
const GROUND = "(db|errors|tokens|process)";

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "An import circle (type-only imports excepted, see no-circular-types).",
      severity: "error",
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ["type-only"] } },
    },
    {
      name: "no-circular-types",
      comment: "A circle through a type-only import: the type lives in the wrong file.",
      severity: "error",
      from: { pathNot: "^lib/generated/" },
      to: { circular: true, via: { dependencyTypes: ["type-only"] } },
    },
    {
      name: "lib-not-ui",
      comment: "lib/ is the server's domain code: it never imports the pages, components or the browser's data layer.",
      severity: "error",
      from: { path: "^lib/" },
      to: { path: "^(app|components|client)/" },
    },
    {
      name: "ground-floor",
      comment: `lib/${GROUND} import no other lib folder (lib/generated excepted: the Prisma client).`,
      severity: "error",
      from: { path: `^lib/${GROUND}/` },
      to: { path: "^lib/", pathNot: ["^lib/$1/", "^lib/generated/"] },
    },
    {
      name: "http-over-errors",
      comment: "lib/http (bounded body reads, the input guard) serves lib/api and the domains: it imports only lib/errors.",
      severity: "error",
      from: { path: "^lib/http/" },
      to: { path: "^lib/", pathNot: ["^lib/(http|errors)/"] },
    },
    {
      name: "domains-not-api-or-server",
      comment: "lib/api (routes' wrapper and contracts) and lib/server (the start) sit above the domains.",
      severity: "error",
      from: { path: "^lib/", pathNot: "^lib/(api|server)/" },
      to: { path: "^lib/(api|server)/" },
    },
    {
      name: "api-not-server",
      comment: "lib/server starts the process; nothing in lib but itself imports it.",
      severity: "error",
      from: { path: "^lib/api/" },
      to: { path: "^lib/server/" },
    },
    {
      name: "start-only-from-instrumentation",
      comment: "lib/server/start.ts runs once, from instrumentation-node.ts: no page, route or proxy reaches it.",
      severity: "error",
      from: { path: "^(app|components|client)/|^proxy\\.ts$" },
      to: { path: "^lib/server/" },
    },
    {
      name: "ui-not-server-only",
      comment: "components/ and client/ run in the browser: they never reach a server-only module.",
      severity: "error",
      from: { path: "^(components|client)/" },
      to: { path: "node_modules/server-only/", reachable: true },
    },
    {
      name: "components-not-app",
      severity: "error",
      from: { path: "^components/" },
      to: { path: "^app/" },
    },
    {
      name: "client-not-ui",
      comment: "client/ is the data layer under the components.",
      severity: "error",
      from: { path: "^client/" },
      to: { path: "^(app|components)/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^lib/generated/" },
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default", "types"] },
  },
};
