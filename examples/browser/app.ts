/**
 * The browser example's page: connects to a server URL with the Promise facade
 * (`Browser.connect`), lists its tools, renders a form from the chosen tool's input schema,
 * calls it, and shows the result and every notification (progress included).
 *
 * @since 0.2.0
 */
import * as Browser from "@mcp-effect/client/Browser"
import type * as McpSchema from "@mcp-effect/client/McpSchema"

const element = <E extends HTMLElement>(id: string) => document.getElementById(id) as E
const status = element<HTMLSpanElement>("status")
const result = element<HTMLPreElement>("result")
const notifications = element<HTMLUListElement>("notifications")
const toolSelect = element<HTMLSelectElement>("tool")
const fields = element<HTMLDivElement>("fields")

let client: Browser.Client | undefined
let tools: ReadonlyArray<McpSchema.Tool> = []

const note = (text: string) => {
  const item = document.createElement("li")
  item.textContent = text
  notifications.append(item)
}

const show = (value: unknown, isError = false) => {
  result.textContent = typeof value === "string" ? value : JSON.stringify(value, null, 2)
  result.className = isError ? "error" : ""
}

interface Property {
  readonly type?: string
  readonly description?: string
}

/** One input per property of the tool's input schema: text, number, checkbox, or JSON. */
const renderForm = (tool: McpSchema.Tool) => {
  element<HTMLParagraphElement>("description").textContent = tool.description ?? ""
  const schema = tool.inputSchema as { properties?: Record<string, Property>; required?: ReadonlyArray<string> }
  fields.replaceChildren(
    ...Object.entries(schema.properties ?? {}).map(([name, property]) => {
      const label = document.createElement("label")
      const input = document.createElement(
        property.type === "object" || property.type === "array" ? "textarea" : "input"
      )
      input.name = name
      input.dataset.type = property.type ?? "json"
      if (input instanceof HTMLInputElement) {
        input.type = property.type === "number" || property.type === "integer"
          ? "number"
          : property.type === "boolean"
          ? "checkbox"
          : "text"
        if (input.type === "number") input.step = "any"
      }
      input.required = (schema.required ?? []).includes(name) && property.type !== "boolean"
      label.append(`${name}${property.description === undefined ? "" : ` — ${property.description}`} `, input)
      return label
    })
  )
}

/** The form's values as the tool's arguments, typed by the schema. */
const argumentsOf = (): Record<string, unknown> =>
  Object.fromEntries(
    Array.from(fields.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>("input, textarea"))
      .filter((input) => input instanceof HTMLInputElement && input.type === "checkbox" || input.value !== "")
      .map((input) => {
        const type = input.dataset.type
        if (input instanceof HTMLInputElement && input.type === "checkbox") return [input.name, input.checked]
        if (type === "number" || type === "integer") return [input.name, Number(input.value)]
        if (type === "string") return [input.name, input.value]
        return [input.name, JSON.parse(input.value) as unknown]
      })
  )

element<HTMLFormElement>("connect").addEventListener("submit", async (event) => {
  event.preventDefault()
  await client?.close()
  status.textContent = "connecting…"
  try {
    client = await Browser.connect(element<HTMLInputElement>("url").value, {
      onNotification: (server, method, params) => note(`${server}: ${method} ${JSON.stringify(params ?? {})}`)
    })
    tools = await client.listTools()
    const server = client.servers[0]!
    status.textContent = `connected to ${server.serverInfo?.name ?? server.name} (${server.protocolVersion})`
    toolSelect.replaceChildren(...tools.map((tool) => new Option(tool.title ?? tool.name, tool.name)))
    element<HTMLFieldSetElement>("tools").hidden = false
    renderForm(tools[0]!)
  } catch (error) {
    status.textContent = "not connected"
    show(`${(error as { _tag?: string })._tag ?? "Error"}: ${(error as Error).message}`, true)
  }
})

toolSelect.addEventListener("change", () => renderForm(tools.find((tool) => tool.name === toolSelect.value)!))

element<HTMLFormElement>("call").addEventListener("submit", async (event) => {
  event.preventDefault()
  if (client === undefined) return
  try {
    const outcome = await client.callTool(toolSelect.value, argumentsOf(), {
      onProgress: (progress) => note(`progress ${progress.progress}/${progress.total ?? "?"} ${progress.message ?? ""}`)
    })
    show(outcome.structuredContent ?? outcome.content, outcome.isError === true)
  } catch (error) {
    show(`${(error as { _tag?: string })._tag ?? "Error"}: ${(error as Error).message}`, true)
  }
})

element<HTMLInputElement>("url").value = new URL("/mcp", location.href).href
