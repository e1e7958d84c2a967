// One validation in the JSON Schema worker with nothing else keeping the process alive; prints
// the outcome (the process used to exit silently while the worker started).
import * as NodeJsonSchema from "@mcp-effect/node/NodeJsonSchema";
import * as Effect from "effect/Effect";

const outcome = await Effect.runPromise(
  Effect.scoped(
    Effect.flatMap(
      NodeJsonSchema.make(),
      (validator) => validator.validate({ type: "object", required: ["a"] }, { a: 1 }),
    ),
  ),
);
console.log(`outcome ${outcome._tag}`);
