// orval's configuration for the contract tests' client (test_typescript_games.py): the fetch
// client, its base URL read at run time, and JSON bodies only.
import { defineConfig } from "orval";

export default defineConfig({
  threeThirteen: {
    input: { target: "../../../openapi/openapi.json" },
    output: {
      target: "generated/orval/api.ts",
      client: "fetch",
      baseUrl: { runtime: "process.env.THREE_THIRTEEN_URL" },
      override: { contentType: { exclude: ["text/plain", "text/plain; charset=utf-8"] } },
    },
  },
});
