// The JS drive: each JS library of the table of clients makes its plain
// call of each feature it uses against the gateway at GW_BASE_URL, and
// one JSON line per call says what it did: {client, feature, outcome,
// detail}, outcome works, fails (an error raised, or a wrong value handed
// back) or hangs (no end within GW_CALL_TIMEOUT_MS). Run by cmd/gwconform
// TestDriveJSLibraries, which holds the outcomes against the table's
// predictions. Retries are off, so a failure is one request.
import { readFileSync } from "node:fs";
import OpenAI, { toFile } from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { generateText, streamText, generateImage } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { ChatOpenAI } from "@langchain/openai";
import { ChatAnthropic } from "@langchain/anthropic";

const base = process.env.GW_BASE_URL;
const keys = {
  text: process.env.GW_TEXT_KEY,
  messages: process.env.GW_MESSAGES_KEY,
  image: process.env.GW_IMAGE_KEY,
};
const refPNG = process.env.GW_REF_PNG;
const timeoutMs = Number(process.env.GW_CALL_TIMEOUT_MS || 90000);
const prompt = "Say something short about rivers.";

class NoValue extends Error {}

function text(s) {
  if (typeof s !== "string" || s.trim() === "") {
    throw new NoValue("no error, but no text");
  }
}

function image(data) {
  if (!Array.isArray(data) || data.length === 0 || !data[0].b64_json) {
    throw new NoValue("no error, but no image");
  }
}

const openai = (key) => new OpenAI({ apiKey: key, baseURL: `${base}/v1`, maxRetries: 0 });
// @anthropic-ai/sdk 1.x sends apiKey as Authorization: Bearer; authToken
// says so on every version.
const anthropic = () =>
  new Anthropic({ authToken: keys.messages, apiKey: null, baseURL: base, maxRetries: 0 });
const vercelOpenAI = () => createOpenAI({ apiKey: keys.text, baseURL: `${base}/v1` });
const vercelImage = () => createOpenAI({ apiKey: keys.image, baseURL: `${base}/v1` });
const vercelAnthropic = () => createAnthropic({ authToken: keys.messages, baseURL: `${base}/v1` });
const lcOpenAI = () =>
  new ChatOpenAI({ model: "gen-5.5", apiKey: keys.text, maxTokens: 256, maxRetries: 0, configuration: { baseURL: `${base}/v1` } });
// The table's remedy for 5.1/bearer: clientOptions.authToken sends
// Authorization: Bearer.
const lcAnthropic = () =>
  new ChatAnthropic({
    model: "msg-sonnet-5", apiKey: keys.messages, maxTokens: 256, maxRetries: 0,
    anthropicApiUrl: base, clientOptions: { authToken: keys.messages },
  });

// streamText hands a failure to the stream as an error part, not a throw.
async function vercelStream(model) {
  let out = "";
  const r = streamText({ model, prompt, maxOutputTokens: 256, maxRetries: 0, onError: () => {} });
  for await (const part of r.fullStream) {
    if (part.type === "error") throw part.error instanceof Error ? part.error : new Error(String(part.error));
    if (part.type === "text-delta") out += part.text ?? part.delta ?? "";
  }
  text(out);
}

async function lcStream(model) {
  let out = "";
  for await (const chunk of await model.stream(prompt)) {
    out += typeof chunk.content === "string" ? chunk.content : chunk.content.map((c) => c.text ?? "").join("");
  }
  text(out);
}

const calls = [
  ["openai-node", "chat.basic", async () => {
    const r = await openai(keys.text).chat.completions.create({ model: "gen-5.5", max_tokens: 256, messages: [{ role: "user", content: prompt }] });
    text(r?.choices?.[0]?.message?.content);
  }],
  ["openai-node", "chat.stream", async () => {
    let out = "";
    const s = await openai(keys.text).chat.completions.create({ model: "gen-5.5", max_tokens: 256, stream: true, messages: [{ role: "user", content: prompt }] });
    for await (const c of s) out += c?.choices?.[0]?.delta?.content ?? "";
    text(out);
  }],
  ["openai-node", "images.generate", async () => {
    const r = await openai(keys.image).images.generate({ model: "gen-image-2", prompt: "A lighthouse at dusk.", size: "1024x1024" });
    image(r?.data);
  }],
  ["openai-node", "images.edit.multipart", async () => {
    const r = await openai(keys.image).images.edit({
      model: "gen-image-2", prompt: "Add a small red boat on the horizon.", size: "1024x1024",
      image: await toFile(readFileSync(refPNG), "ref-a-1024.png", { type: "image/png" }),
    });
    image(r?.data);
  }],
  ["anthropic-sdk-typescript", "messages.basic", async () => {
    const m = await anthropic().messages.create({ model: "msg-sonnet-5", max_tokens: 256, messages: [{ role: "user", content: prompt }] });
    text((m?.content ?? []).map((b) => b.text ?? "").join(""));
  }],
  ["anthropic-sdk-typescript", "messages.stream", async () => {
    let out = "";
    const s = await anthropic().messages.create({ model: "msg-sonnet-5", max_tokens: 256, stream: true, messages: [{ role: "user", content: prompt }] });
    for await (const e of s) if (e.type === "content_block_delta") out += e.delta?.text ?? "";
    text(out);
  }],
  ["vercel-ai-sdk", "chat.basic", async () => {
    const r = await generateText({ model: vercelOpenAI().chat("gen-5.5"), prompt, maxOutputTokens: 256, maxRetries: 0 });
    text(r.text);
  }],
  ["vercel-ai-sdk", "chat.stream", () => vercelStream(vercelOpenAI().chat("gen-5.5"))],
  ["vercel-ai-sdk", "messages.basic", async () => {
    const r = await generateText({ model: vercelAnthropic()("msg-sonnet-5"), prompt, maxOutputTokens: 256, maxRetries: 0 });
    text(r.text);
  }],
  ["vercel-ai-sdk", "messages.stream", () => vercelStream(vercelAnthropic()("msg-sonnet-5"))],
  ["vercel-ai-sdk", "images.generate", async () => {
    const r = await generateImage({ model: vercelImage().image("gen-image-2"), prompt: "A lighthouse at dusk.", size: "1024x1024", maxRetries: 0 });
    if (!r.image?.base64) throw new NoValue("no error, but no image");
  }],
  ["langchainjs", "chat.basic", async () => text((await lcOpenAI().invoke(prompt)).content)],
  ["langchainjs", "chat.stream", () => lcStream(lcOpenAI())],
  ["langchainjs", "messages.basic", async () => {
    const m = await lcAnthropic().invoke(prompt);
    text(typeof m.content === "string" ? m.content : m.content.map((c) => c.text ?? "").join(""));
  }],
  ["langchainjs", "messages.stream", () => lcStream(lcAnthropic())],
];

const only = process.env.GW_DRIVE_ONLY; // client/feature, to rerun one call by hand

for (const [client, feature, call] of calls) {
  if (only && only !== `${client}/${feature}`) continue;
  let timer;
  const hang = new Promise((resolve) => { timer = setTimeout(() => resolve("hang"), timeoutMs); });
  let outcome = "works";
  let detail = "";
  try {
    if ((await Promise.race([call(), hang])) === "hang") {
      outcome = "hangs";
      detail = `no end within ${timeoutMs} ms`;
    }
  } catch (e) {
    outcome = "fails";
    detail = `${e?.constructor?.name ?? "Error"}: ${String(e?.message ?? e).slice(0, 300)}`;
  } finally {
    clearTimeout(timer);
  }
  console.log(JSON.stringify({ client, feature, outcome, detail }));
}
// A call left hanging keeps its socket open; the drive is over.
process.exit(0);
