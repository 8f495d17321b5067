// The web timeline of `tavern-agent serve`: runs list, start form, and a run page with the
// live timeline, read from the JSON API with the bearer token of the URL fragment.
// Plain script, no build step, no dependencies. Every text from the server reaches the
// page through textContent or attributes, never as HTML.
"use strict";

const TOKEN_KEY = "tavern-agent.token";
const PAGE = 200; // events per page (the API allows up to 500)
const ROW_H = 30; // px; every timeline row has this height, which makes windowing exact
const OVERSCAN = 10; // rows rendered above and below the visible ones
const RUNS_PAGE = 50;

// ---------- small helpers ----------

const $ = (id) => document.getElementById(id);

/** An element with attributes/properties and children (strings become text nodes). */
function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value);
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

function oneLine(text) {
  return String(text ?? "").replace(/\s+/g, " ").trim();
}

function cut(text, width) {
  const chars = Array.from(String(text));
  return chars.length <= width ? String(text) : chars.slice(0, width - 1).join("") + "…";
}

function millis(ms) {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60000)} min ${Math.floor((ms % 60000) / 1000)} s`;
}

function clock(timestamp) {
  const date = new Date(timestamp);
  return isNaN(date) ? "" : date.toLocaleTimeString([], { hour12: false });
}

function when(timestamp) {
  const date = new Date(timestamp);
  return isNaN(date) ? String(timestamp ?? "") : date.toLocaleString([], { hour12: false });
}

/** `Alice/chat.jsonl` for a character chat, `group: id` for a group chat. */
function chatLabel(ref) {
  if (!ref || typeof ref !== "object") return String(ref ?? "");
  if (ref.kind === "group") return `group: ${ref.chatId}`;
  return `${ref.characterId ?? "?"}/${ref.fileName ?? "?"}`;
}

function tokensLabel(usage) {
  if (!usage) return "";
  return `${usage.inputTokens ?? 0} in / ${usage.outputTokens ?? 0} out`;
}

/** A short `key=value …` summary of tool arguments (the CLI's timeline does the same). */
function summarizeArguments(text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    // A preview the turn view cut short (ending in "…") is JSON that lost its end; anything
    // else is raw text the model sent.
    return text.endsWith("…") ? oneLine(text) : `(raw) ${oneLine(text)}`;
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) return oneLine(text);
  const lead = ["path", "name", "query", "messages"];
  const rank = (key) => (lead.includes(key) ? lead.indexOf(key) : lead.length);
  return Object.keys(value)
    .sort((a, b) => rank(a) - rank(b))
    .map((key) => {
      const item = value[key];
      let shown;
      if (typeof item === "string") shown = JSON.stringify(cut(oneLine(item), 32));
      else if (Array.isArray(item)) shown = `[${item.length} items]`;
      else if (item && typeof item === "object") shown = `{${Object.keys(item).length} keys}`;
      else shown = String(item);
      return `${key}=${shown}`;
    })
    .join(" ");
}

// ---------- token and API ----------

/** The token: taken from `#token=…` once (then dropped from the address), else the tab's. */
function takeToken() {
  const match = /(?:^#|&)token=([^&]*)/.exec(location.hash);
  if (match) {
    sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(match[1]));
    history.replaceState(null, "", location.pathname + location.search + "#/runs");
  }
  return sessionStorage.getItem(TOKEN_KEY);
}

class ApiError extends Error {
  constructor(status, code, message) {
    super(`${code}: ${message}`);
    this.status = status;
    this.code = code;
  }
}

function authHeaders(extra) {
  return Object.assign({ Authorization: `Bearer ${sessionStorage.getItem(TOKEN_KEY) ?? ""}` }, extra);
}

/** Fails with an ApiError carrying the server's `{code, message}`; a 401 shows the token notice. */
async function raiseFor(response) {
  if (response.ok) return;
  let body = {};
  try {
    body = await response.json();
  } catch {
    // Not JSON: the status says enough.
  }
  const error = new ApiError(response.status, body.code ?? `http.${response.status}`, body.message ?? response.statusText);
  if (response.status === 401) refused(error);
  throw error;
}

async function api(path, options = {}) {
  const init = { method: options.method ?? "GET", headers: authHeaders() };
  if (options.body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(options.body);
  }
  const response = await fetch(path, init);
  await raiseFor(response);
  return response.status === 204 ? null : response.json();
}

function query(params) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") search.set(key, value);
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

// ---------- notices ----------

function notice(text, kind = "error") {
  const box = $("notice");
  box.textContent = text;
  box.className = kind;
  box.hidden = !text;
}

function missingToken() {
  notice(
    "No access token. Open the address `tavern-agent serve` printed on its standard error " +
      "(http://127.0.0.1:PORT/#token=…); the token stays in this tab only.",
  );
}

function refused(error) {
  sessionStorage.removeItem(TOKEN_KEY);
  notice(
    `The server refused the access token (${error.code}). Open the address ` +
      "`tavern-agent serve` printed again: each start of the server makes a new token " +
      "unless TAVERN_AGENT_SERVE_TOKEN fixes it.",
  );
}

function showError(error) {
  if (error instanceof ApiError && error.status === 401) return; // already explained
  notice(String(error.message ?? error));
}

// ---------- routing ----------

let current = null; // the open view's teardown, if any

function route() {
  if (current) current();
  current = null;
  if (!sessionStorage.getItem(TOKEN_KEY)) {
    $("runs-view").hidden = true;
    $("run-view").hidden = true;
    missingToken();
    return;
  }
  const run = /^#\/run\/([^/?]+)/.exec(location.hash);
  if (run) current = openRun(decodeURIComponent(run[1]));
  else current = openRuns();
}

// ---------- runs list and start form ----------

function openRuns() {
  $("run-view").hidden = true;
  $("runs-view").hidden = false;
  notice("");
  document.title = "tavern-agent: runs";
  const list = $("runs-list");
  list.replaceChildren();
  let next = null;

  async function loadPage() {
    $("runs-more").hidden = true;
    try {
      const page = await api(`/api/runs${query({ limit: RUNS_PAGE, before: next })}`);
      if (!page.runs.length && !list.childElementCount) {
        list.append(el("p", { class: "muted empty", text: "No runs yet. Start one above." }));
      }
      const cards = page.runs.map(runCard);
      list.append(...cards);
      next = page.next ?? null;
      $("runs-more").hidden = !next;
      await fillTokens(cards);
    } catch (error) {
      showError(error);
    }
  }
  $("runs-more").onclick = loadPage;
  loadPage();
  loadStartOptions();
  return () => {
    $("runs-more").onclick = null;
  };
}

function runCard(run) {
  const id = run.id ?? run.runId;
  return el(
    "a",
    { class: "run-card", href: `#/run/${encodeURIComponent(id)}`, dataset: { runId: id } },
    el("span", { class: `status status-${run.status}`, text: run.status }),
    el("span", { class: "run-chat", text: chatLabel(run.chatRef) }),
    el("span", { class: "run-profile", text: run.profileId ?? "(default profile)" }),
    el("span", { class: "run-time muted", text: when(run.createdAt) }),
    el("span", { class: "run-tokens muted" }),
    el("span", { class: "run-id muted", text: id }),
  );
}

/**
 * Run records carry no token counts; each run's summary (`GET /api/runs/{id}`) does (and
 * the rounds and the error). They are read one after another so a long list never floods
 * the server.
 */
async function fillTokens(cards) {
  for (const card of cards) {
    if (!card.isConnected) return; // the list was left or reloaded
    try {
      const show = await api(`/api/runs/${encodeURIComponent(card.dataset.runId)}`);
      const facts = [
        `${show.modelRounds ?? 0} rounds`,
        show.usage ? `${tokensLabel(show.usage)} tokens` : null,
        show.error?.code ?? null,
      ];
      card.querySelector(".run-tokens").textContent = facts.filter(Boolean).join(" · ");
    } catch {
      // The list still shows the run; its tokens stay blank.
    }
  }
}

/** Items of a list response, whether it is an array or `{<key>: [...]}`. */
function itemsOf(response, key) {
  if (Array.isArray(response)) return response;
  if (response && Array.isArray(response[key])) return response[key];
  return [];
}

let startOptionsLoaded = false;

async function loadStartOptions() {
  if (startOptionsLoaded) return;
  startOptionsLoaded = true;
  const fill = async (path, key, target, label) => {
    try {
      for (const item of itemsOf(await api(path), key)) {
        const value = label(item);
        if (value) target.append(el("option", { value: value.value, text: value.text }));
      }
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 401)) {
        target.append(el("option", { value: "", disabled: "", text: `(${error.code ?? "error"})` }));
      }
    }
  };
  await Promise.all([
    fill("/api/chats", "chats", $("chat-options"), (chat) => {
      const value = chat.path;
      return value && { value, text: value };
    }),
    fill("/api/profiles", "profiles", $("start-profile"), (profile) => {
      const value = profile.id ?? profile.profileId;
      return value && { value, text: profile.name && profile.name !== value ? `${profile.name} (${value})` : value };
    }),
    fill("/api/connections", "connections", $("start-connection"), (connection) => {
      const value = connection.id ?? connection.name;
      return value && { value, text: connection.name && connection.name !== value ? `${connection.name} (${value})` : value };
    }),
  ]);
}

function modelChoice() {
  return document.querySelector('input[name="model"]:checked').value;
}

function wireStartForm() {
  for (const radio of document.querySelectorAll('input[name="model"]')) {
    radio.addEventListener("change", () => {
      const script = modelChoice() === "script";
      $("start-script").hidden = !script;
      $("start-connection").hidden = script;
    });
  }
  $("start-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    $("start-error").textContent = "";
    const body = { chat: $("start-chat").value.trim() };
    if ($("start-profile").value) body.profileId = $("start-profile").value;
    if (modelChoice() === "script") {
      // Sent as text, so the server's script errors point into it exactly as typed.
      body.script = $("start-script").value;
    } else if ($("start-connection").value) {
      body.connection = $("start-connection").value;
    }
    $("start-submit").disabled = true;
    try {
      const run = await api("/api/runs", { method: "POST", body });
      $("start-details").open = false;
      location.hash = `#/run/${encodeURIComponent(run.id ?? run.runId)}`;
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 401)) $("start-error").textContent = error.message;
    } finally {
      $("start-submit").disabled = false;
    }
  });
}

// ---------- the run page ----------

/** The terminal events and the run status each one ends in. */
const TERMINAL = new Map([
  ["run_completed", "completed"],
  ["run_partial_success", "partial_success"],
  ["run_cancelled", "cancelled"],
  ["run_failed", "failed"],
]);

/** State of the open run page; replaced on every open. */
class RunPage {
  constructor(runId) {
    this.runId = runId;
    this.events = new Map(); // seq -> journal line, every loaded event
    this.lowSeq = Infinity; // the oldest loaded seq
    this.highSeq = 0; // the newest loaded seq
    this.reachedStart = false;
    this.loadingOlder = false;
    this.rows = []; // timeline rows, oldest first
    this.callRows = new Map(); // callId -> its row (one row per tool call)
    this.resultPaths = new Map(); // callId -> tool result file
    this.invocations = new Map(); // invocationId -> {profileId, kind, parent}
    this.turns = new Map(); // "inv/round" -> Promise of the turn view
    this.ended = false;
    this.journalStatus = null; // the status the loaded terminal event ends the run in
    this.abort = new AbortController();
    this.stickToBottom = true;
    this.renderQueued = false;
    this.selected = null;
  }

  api(path, options) {
    return api(`/api/runs/${encodeURIComponent(this.runId)}${path}`, options);
  }

  depth(invocationId) {
    let depth = 0;
    let seen = 0;
    let info = this.invocations.get(invocationId);
    while (info && info.parent && seen++ < 32) {
      if (info.kind === "subagent") depth += 1;
      info = this.invocations.get(info.parent);
    }
    return depth;
  }

  profileOf(invocationId) {
    if (!invocationId || invocationId === "inv_root") return null;
    return this.invocations.get(invocationId)?.profileId ?? invocationId;
  }

  learnInvocation(record) {
    const id = record.id ?? record.invocationId;
    if (!id) return;
    this.invocations.set(id, {
      profileId: record.profileId,
      kind: record.kind,
      parent: record.parentInvocationId ?? null,
    });
  }

  /** Rows of events, `older` when they come before every loaded one. */
  addEvents(lines, older) {
    const fresh = lines.filter((line) => !this.events.has(line.seq));
    if (!fresh.length) return 0;
    for (const line of fresh) {
      this.events.set(line.seq, line);
      this.lowSeq = Math.min(this.lowSeq, line.seq);
      this.highSeq = Math.max(this.highSeq, line.seq);
      if (line.type === "agent_invocation_created") this.learnInvocation(line.payload);
      if (line.type === "tool_result_stored") this.resultPaths.set(line.payload.callId, line.payload.path);
      if (TERMINAL.has(line.type)) {
        this.ended = true;
        this.journalStatus = TERMINAL.get(line.type);
      }
    }
    if (this.lowSeq <= 1) this.reachedStart = true;
    const rows = [];
    for (const line of fresh) {
      const row = this.rowOf(line);
      if (row) rows.push(row);
    }
    if (older) this.rows = rows.concat(this.rows);
    else this.rows.push(...rows);
    return rows.length;
  }

  /** The timeline row of one journal line, or null when the line shows nothing. */
  rowOf(line) {
    const p = line.payload ?? {};
    const inv = p.invocationId ?? p.parentInvocationId ?? "inv_root";
    const row = { seq: line.seq, line, inv, icon: "", text: "", cls: "", detail: "event" };
    const showAll = $("show-all").checked;
    switch (line.type) {
      case "profile_resolved":
        row.icon = "·";
        row.text = `profile ${p.profileId} (${p.source === "built_in" ? "built in" : "saved"})`;
        row.cls = "dim";
        break;
      case "agent_model_binding_resolved":
        if (p.invocationId !== "inv_root" && !showAll) return null;
        row.icon = "·";
        row.text =
          p.mode === "script"
            ? "scripted model"
            : p.mode === "connection"
              ? `connection ${p.connection ?? "?"} (${p.modelId ?? "?"})`
              : `model ${p.modelId ?? "?"}`;
        row.cls = "dim";
        break;
      case "agent_invocation_created":
        if (p.invocationId === "inv_root" && !showAll) return null;
        row.inv = p.parentInvocationId ?? "inv_root";
        row.icon = "→";
        row.text = `${p.profileId} ${p.kind === "subagent" ? "delegated task" : "takes over the run"} (${p.invocationId})`;
        row.cls = "delegation";
        break;
      case "task_return_completed":
        row.inv = p.parentInvocationId;
        row.icon = "←";
        row.text = `${this.profileOf(p.childInvocationId) ?? "child"} returned ${p.status}`;
        row.cls = p.status === "completed" ? "delegation" : "warn";
        break;
      case "agent_task_failed":
        row.inv = p.parentInvocationId;
        row.icon = "←";
        row.text = `${p.targetProfileId} task failed: ${oneLine(p.error ?? "failed")}`;
        row.cls = "error";
        break;
      case "agent_task_cancelled":
        row.inv = p.parentInvocationId;
        row.icon = "←";
        row.text = `${p.targetProfileId} task cancelled`;
        row.cls = "warn";
        break;
      case "agent_await_completed":
        row.inv = p.parentInvocationId;
        row.icon = "·";
        row.text = `awaited ${p.taskCount} task(s)${p.timedOut ? ", timed out" : ""}`;
        row.cls = "dim";
        break;
      case "model_call_attempt_failed":
        row.icon = "!";
        row.text = `round ${p.round}: model call failed${p.willRetry ? ", retrying" : ""}: ${p.code ?? "model.error"}: ${oneLine(p.message)}`;
        row.cls = p.willRetry ? "warn" : "error";
        break;
      case "model_call_retry_scheduled":
        row.icon = "·";
        row.text = `retry ${p.nextAttempt} in ${millis(p.intervalMs)}`;
        row.cls = "dim";
        break;
      case "model_completed": {
        const calls = p.toolCallCount === 1 ? "1 tool call" : `${p.toolCallCount || "no"} tool calls`;
        let text = `round ${p.round} · ${calls}`;
        if (p.usage) text += ` · ${tokensLabel(p.usage)} tokens`;
        if (p.narration) text += ` · “${oneLine(p.narration.text)}”`;
        else if (!p.toolCallCount && p.hasAssistantText) text += ` · (text only, ${p.assistantTextChars} chars)`;
        row.icon = "◆";
        row.text = text;
        row.cls = "round";
        row.detail = "turn";
        break;
      }
      case "direct_output_captured":
        row.icon = "·";
        row.text = `text saved to ${p.path}`;
        row.detail = "file";
        row.path = p.path;
        break;
      case "drift_recovery_attempted":
        row.icon = "!";
        row.text = `no tool call: reminded the model to use its tools (${p.attempt}/${p.maxAttempts})`;
        row.cls = "warn";
        break;
      case "tool_call_requested":
      case "tool_call_started":
      case "tool_call_completed":
      case "tool_call_failed":
        return this.toolRow(line, row);
      case "mcp_notice_received":
        if (!showAll && p.notice?.kind === "log" && !["warning", "error", "critical", "alert", "emergency"].includes(p.notice.level)) return null;
        row.icon = "…";
        row.text = `${p.toolId}: ${oneLine(JSON.stringify(p.notice))}`;
        row.cls = "dim";
        break;
      case "workspace_file_written":
      case "workspace_patch_applied":
        row.icon = "✎";
        row.text = `${line.type === "workspace_patch_applied" ? "patched" : p.mode === "append" ? "appended to" : "wrote"} ${p.path} (${p.chars} chars)`;
        row.cls = "dim";
        row.detail = "file";
        row.path = p.path;
        break;
      case "chat_commit_completed":
        row.icon = "↳";
        row.text = `${p.isExplicit ? "committed" : "auto-published"} ${p.path} to the chat (message ${p.messageIndex ?? p.messageId})`;
        row.cls = "commit";
        row.detail = "file";
        row.path = p.path;
        break;
      case "chat_commit_failed":
        row.icon = "✗";
        row.text = `commit of ${p.path} failed: ${oneLine(p.message)}`;
        row.cls = "error";
        break;
      case "persistent_changes_committed":
        if (!p.changeCount && !p.browsableCopyError && !showAll) return null;
        row.icon = "·";
        row.text = `persist: ${p.changeCount} change(s) saved as state ${p.stateId}`;
        row.cls = p.browsableCopyError ? "warn" : "dim";
        break;
      case "user_guidance_submitted":
        row.icon = "✉";
        row.text = `guidance sent: ${oneLine(p.text)}`;
        row.cls = "guidance";
        break;
      case "user_guidance_applied":
        row.icon = "✉";
        row.text = `guidance applied (round ${p.round}): ${oneLine(p.preview)}`;
        row.cls = "guidance";
        break;
      case "user_guidance_discarded":
        row.icon = "✉";
        row.text = `${p.count} guidance note(s) discarded: ${String(p.reason ?? "").replaceAll("_", " ")}`;
        row.cls = "warn";
        break;
      case "run_cancel_requested":
        row.icon = "■";
        row.text = "cancelling…";
        row.cls = "warn";
        break;
      case "run_completed":
        row.icon = "✓";
        row.text = "run completed";
        row.cls = "ok end";
        break;
      case "run_cancelled":
        row.icon = "■";
        row.text = `run cancelled${p && p.message ? `: ${oneLine(p.message)}` : ""}`;
        row.cls = "warn end";
        break;
      case "run_failed":
        row.icon = "✗";
        row.text = `run failed: ${p.code}: ${oneLine(p.message)}`;
        row.cls = "error end";
        break;
      case "run_partial_success":
        row.icon = "✗";
        row.text = `run failed after committing (the committed message stays): ${p.failure?.code}: ${oneLine(p.failure?.message)}`;
        row.cls = "error end";
        break;
      case "run_rolled_back":
        row.icon = "↺";
        row.text = "rolled back";
        row.cls = "warn";
        break;
      default:
        if (!showAll && line.level !== "warn" && line.level !== "error") return null;
        row.icon = "·";
        row.text = line.type;
        row.cls = line.level === "error" ? "error" : line.level === "warn" ? "warn" : "dim";
    }
    return row;
  }

  /** One row per tool call: made by its first event, updated by the later ones. */
  toolRow(line, fresh) {
    const p = line.payload;
    let row = this.callRows.get(p.callId);
    const made = !row;
    if (made) {
      row = fresh;
      row.detail = "tool";
      row.callId = p.callId;
      row.round = p.round;
      row.toolId = p.toolId;
      row.state = "requested";
      this.callRows.set(p.callId, row);
    }
    const order = { tool_call_requested: 0, tool_call_started: 1, tool_call_completed: 2, tool_call_failed: 2 };
    if (order[line.type] >= (order[row.stateType] ?? -1)) {
      row.stateType = line.type;
      if (line.type === "tool_call_completed" || line.type === "tool_call_failed") {
        row.outcome = p;
        row.outcomeSeq = line.seq;
      }
    }
    this.paintTool(row);
    return made ? row : null;
  }

  paintTool(row) {
    const name = String(row.toolId).replace(/^builtin:/, "");
    const args = row.argsSummary ? ` ${row.argsSummary}` : "";
    const outcome = row.outcome;
    if (!outcome) {
      row.icon = "⋯";
      row.text = `${name}${args}`;
      row.cls = "tool running";
    } else if (row.stateType === "tool_call_completed") {
      row.icon = "✓";
      row.text = `${name}${args} · ${millis(outcome.elapsedMs)}`;
      row.cls = "tool ok";
    } else {
      row.icon = "✗";
      row.text = `${name}${args} · ${millis(outcome.elapsedMs)} → ${outcome.errorCode ?? "tool.error"}${outcome.fatal ? " (fatal)" : ""}: ${oneLine(outcome.message)}`;
      row.cls = "tool error";
    }
  }

  /** The model turn view of one round, fetched once. */
  turn(invocation, round) {
    const key = `${invocation}/${round}`;
    if (!this.turns.has(key)) {
      const promise = this.api(`/turns/${round}${query({ invocation })}`);
      promise.catch(() => this.turns.delete(key));
      this.turns.set(key, promise);
    }
    return this.turns.get(key);
  }

  /** Fills the argument summaries of visible tool rows from their turn views. */
  fillArguments(rows) {
    for (const row of rows) {
      if (row.detail !== "tool" || row.argsSummary !== undefined || row.argsAsked) continue;
      row.argsAsked = true;
      this.turn(row.inv, row.round)
        .then((view) => {
          const call = view.toolCalls?.find((item) => item.callId === row.callId);
          row.argsSummary = call ? cut(summarizeArguments(call.argumentsPreview), 72) : "";
          this.paintTool(row);
          this.queueRender();
        })
        .catch(() => {
          row.argsAsked = false; // try again when it scrolls into view next time
        });
    }
  }
}

let page = null;

function openRun(runId) {
  $("runs-view").hidden = true;
  $("run-view").hidden = false;
  notice("");
  closeDetail();
  document.title = `tavern-agent: ${runId}`;
  page = new RunPage(runId);
  const state = page;
  $("run-title").replaceChildren(el("span", { class: "run-id", text: runId }));
  $("run-facts").textContent = "";
  $("timeline-spacer").replaceChildren();
  $("timeline-spacer").style.height = "0px";
  hideLive();
  state.loadHead().then(() => state.loadLatest()).catch(showError);
  return () => {
    state.abort.abort();
    if (page === state) page = null;
  };
}

RunPage.prototype.loadHead = async function loadHead() {
  const show = await this.api("");
  for (const invocation of show.invocations ?? []) this.learnInvocation(invocation);
  this.showHead(show);
};

RunPage.prototype.showHead = function showHead(show) {
  // The journal can be ahead of the stored record (the status is saved after the event):
  // a status the loaded events reached wins over an older one in the answer.
  const status = this.journalStatus ?? show.status;
  $("run-title").replaceChildren(
    el("span", { class: `status status-${status}`, text: status }),
    " ",
    el("span", { class: "run-chat", text: chatLabel(show.chatRef) }),
  );
  const facts = [
    show.profileId ? `profile ${show.profileId}` : null,
    `started ${when(show.createdAt)}`,
    show.modelRounds !== undefined ? `${show.modelRounds} rounds` : null,
    show.toolCalls !== undefined ? `${show.toolCalls} tool calls` : null,
    show.commitCount !== undefined ? `${show.commitCount} commits` : null,
    show.usage ? `${tokensLabel(show.usage)} tokens` : null,
    show.error ? `${show.error.code}: ${oneLine(show.error.message)}` : null,
    this.runId,
  ].filter(Boolean);
  $("run-facts").textContent = facts.join(" · ");
  this.setEnded(TERMINAL_STATUSES.has(status));
};

const TERMINAL_STATUSES = new Set(["completed", "partial_success", "cancelled", "failed"]);

RunPage.prototype.setEnded = function setEnded(ended) {
  this.ended = this.ended || ended;
  $("cancel-run").disabled = this.ended;
  $("guidance-send").disabled = this.ended;
  $("guidance-text").disabled = this.ended;
};

/** The newest page, then the live stream after it. */
RunPage.prototype.loadLatest = async function loadLatest() {
  const latest = await this.api(`/events${query({ beforeSeq: "18446744073709551615", limit: PAGE })}`);
  this.addEvents(latest.events, false);
  if (!latest.events.length) this.reachedStart = true;
  this.stickToBottom = true;
  this.queueRender();
  this.stream();
};

RunPage.prototype.loadOlder = async function loadOlder() {
  if (this.loadingOlder || this.reachedStart || this.lowSeq === Infinity) return;
  this.loadingOlder = true;
  $("timeline").classList.add("loading");
  try {
    const older = await this.api(`/events${query({ beforeSeq: this.lowSeq, limit: PAGE })}`);
    if (!older.events.length) this.reachedStart = true;
    const timeline = $("timeline");
    const headBefore = this.headRows();
    const added = this.addEvents(older.events, true);
    // Keep what the reader looks at in place while rows appear above it: grow the list
    // first, or the browser would clamp the new scroll position.
    this.sizeSpacer();
    timeline.scrollTop += (added + this.headRows() - headBefore) * ROW_H;
    this.queueRender();
  } catch (error) {
    showError(error);
  } finally {
    this.loadingOlder = false;
    $("timeline").classList.remove("loading");
  }
};

/** Follows `/stream` from the newest loaded seq; reconnects after a drop, resuming there. */
RunPage.prototype.stream = async function stream() {
  let delay = 500;
  while (!this.abort.signal.aborted) {
    if (this.ended && this.highSeq > 0) break;
    try {
      setConnection("live");
      const response = await fetch(
        `/api/runs/${encodeURIComponent(this.runId)}/stream${query({ afterSeq: this.highSeq })}`,
        { headers: authHeaders({ Accept: "text/event-stream" }), signal: this.abort.signal },
      );
      await raiseFor(response);
      delay = 500;
      await readEventStream(response.body, (message) => this.onMessage(message));
    } catch (error) {
      if (this.abort.signal.aborted) return;
      if (error instanceof ApiError && error.status < 500) {
        showError(error);
        break;
      }
      setConnection("reconnecting…");
      await sleep(delay);
      delay = Math.min(delay * 2, 8000);
    }
  }
  if (!this.abort.signal.aborted) {
    setConnection("");
    hideLive();
    this.refreshHead();
  }
};

RunPage.prototype.refreshHead = function refreshHead() {
  this.api("")
    .then((show) => {
      if (page === this) this.showHead(show);
    })
    .catch(showError);
};

RunPage.prototype.onMessage = function onMessage(message) {
  if (message.event === "model_delta") {
    liveDelta(JSON.parse(message.data));
    return;
  }
  if (message.event === "error") {
    // The journal could not be read further: say why and stop following.
    const error = JSON.parse(message.data);
    this.abort.abort();
    notice(`${error.code}: ${error.message}`);
    setConnection("");
    return;
  }
  if (message.event && message.event !== "run_event") return;
  const line = JSON.parse(message.data);
  if (line.seq <= this.highSeq) return; // already shown (a resumed stream repeats nothing, but be safe)
  const ended = this.ended;
  this.addEvents([line], false);
  if (line.type === "model_completed" || line.type === "model_call_attempt_failed") hideLive();
  if (line.type === "status_changed" || TERMINAL.has(line.type) || line.type === "agent_invocation_created") {
    this.refreshHead();
  }
  if (!ended && this.ended) this.setEnded(true);
  this.queueRender();
};

function setConnection(text) {
  $("connection-state").textContent = text;
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Parses a `text/event-stream` body: calls `onMessage({id, event, data})` per message. */
async function readEventStream(body, onMessage) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let message = { data: [] };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end;
    while ((end = buffer.search(/\r\n|\r|\n/)) >= 0) {
      if (end === buffer.length - 1 && buffer[end] === "\r") break; // maybe half of "\r\n"
      const lineText = buffer.slice(0, end);
      buffer = buffer.slice(end + (buffer.startsWith("\r\n", end) ? 2 : 1));
      if (lineText === "") {
        if (message.data.length) onMessage({ id: message.id, event: message.event, data: message.data.join("\n") });
        message = { data: [] };
        continue;
      }
      if (lineText.startsWith(":")) continue; // a comment (keep-alive)
      const colon = lineText.indexOf(":");
      const field = colon < 0 ? lineText : lineText.slice(0, colon);
      let value = colon < 0 ? "" : lineText.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "data") message.data.push(value);
      else if (field === "event") message.event = value;
      else if (field === "id") message.id = value;
    }
  }
}

// ---------- live model text ----------

let live = null; // {key, tools: Map(index -> {name, args})}

function hideLive() {
  live = null;
  $("live").hidden = true;
  $("live-text").textContent = "";
  $("live-reasoning").textContent = "";
  $("live-tools").textContent = "";
}

/**
 * One `model_delta` message (docs/serve.md): `{invocationId, round, attempt, kind, …}` with
 * `text` for `text` and `reasoning`, `index` and `name` for `tool_call_started`, `index` and
 * `fragment` for `tool_call_arguments`, `index` for `tool_call_finished`.
 */
function liveDelta(message) {
  const key = `${message.invocationId}/${message.round}/${message.attempt}`;
  if (!live || live.key !== key) {
    hideLive();
    live = { key, tools: new Map() };
    const who = page?.profileOf(message.invocationId);
    $("live-head").textContent = `${who ? `[${who}] ` : ""}round ${message.round}${message.attempt > 1 ? ` (attempt ${message.attempt})` : ""}: the model is answering…`;
  }
  $("live").hidden = false;
  switch (message.kind) {
    case "text":
      $("live-text").append(message.text ?? "");
      break;
    case "reasoning":
      $("live-reasoning").append(message.text ?? "");
      break;
    case "tool_call_started":
      live.tools.set(message.index, { name: message.name, args: "" });
      break;
    case "tool_call_arguments": {
      const tool = live.tools.get(message.index);
      if (tool) tool.args += message.fragment ?? "";
      break;
    }
    default:
      break;
  }
  $("live-tools").textContent = Array.from(live.tools.values())
    .map((tool) => `⋯ ${tool.name} ${cut(oneLine(tool.args), 120)}`)
    .join("\n");
  const timeline = $("timeline");
  if (page?.stickToBottom) timeline.scrollTop = timeline.scrollHeight;
}

// ---------- windowed rendering ----------

RunPage.prototype.queueRender = function queueRender() {
  if (this.renderQueued) return;
  this.renderQueued = true;
  requestAnimationFrame(() => {
    this.renderQueued = false;
    if (page === this) this.render();
  });
};

/** 1 while older events remain: a "loading older" row heads the list until the start. */
RunPage.prototype.headRows = function headRows() {
  return this.reachedStart ? 0 : 1;
};

/** Sizes the list to every row, drawn or not; returns the row count. */
RunPage.prototype.sizeSpacer = function sizeSpacer() {
  const total = this.rows.length + this.headRows();
  $("timeline-spacer").style.height = `${total * ROW_H}px`;
  return total;
};

/** Draws only the rows in view (plus a margin): a 10,000-event run costs what a short one does. */
RunPage.prototype.render = function render() {
  const timeline = $("timeline");
  const spacer = $("timeline-spacer");
  const top = this.headRows();
  const total = this.sizeSpacer();
  if (this.stickToBottom) timeline.scrollTop = timeline.scrollHeight;
  const first = Math.max(0, Math.floor(timeline.scrollTop / ROW_H) - OVERSCAN);
  const last = Math.min(total, Math.ceil((timeline.scrollTop + timeline.clientHeight) / ROW_H) + OVERSCAN);
  const nodes = [];
  const visible = [];
  for (let index = first; index < last; index++) {
    if (index < top) {
      nodes.push(el("div", { class: "row older", style: `top:${index * ROW_H}px`, text: "older events load as you scroll up…" }));
      continue;
    }
    const row = this.rows[index - top];
    visible.push(row);
    nodes.push(this.rowNode(row, index));
  }
  spacer.replaceChildren(...nodes);
  this.fillArguments(visible);
  if (!this.reachedStart && first < top + OVERSCAN) this.loadOlder();
};

RunPage.prototype.rowNode = function rowNode(row, index) {
  const depth = this.depth(row.inv);
  const who = this.profileOf(row.inv);
  const node = el(
    "div",
    {
      class: `row ${row.cls}${this.selected === row ? " selected" : ""}${depth ? " nested" : ""}`,
      style: `top:${index * ROW_H}px;padding-left:${0.5 + depth * 1.5}rem`,
      role: "button",
      tabindex: "-1",
      dataset: { seq: String(row.seq), type: row.line.type, inv: row.inv },
      onclick: () => this.select(row),
    },
    el("span", { class: "time", text: clock(row.line.timestamp) }),
    el("span", { class: "icon", text: row.icon }),
    who ? el("span", { class: "who", text: `[${who}]` }) : null,
    el("span", { class: "text", text: row.text, title: row.text }),
  );
  return node;
};

// ---------- the detail panel ----------

function closeDetail() {
  $("detail").hidden = true;
  $("detail-body").replaceChildren();
  document.body.classList.remove("detail-open");
  if (page) {
    page.selected = null;
    page.queueRender();
  }
}

function section(title, ...children) {
  return el("section", { class: "detail-section" }, el("h3", { text: title }), ...children);
}

function pre(text, cls) {
  return el("pre", { class: cls ?? "", text });
}

/** A JSON text pretty-printed when it parses, as is otherwise. */
function prettyJson(text) {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

RunPage.prototype.select = async function select(row) {
  this.selected = row;
  this.queueRender();
  $("detail").hidden = false;
  document.body.classList.add("detail-open");
  $("detail-title").textContent =
    row.detail === "tool" ? `tool call ${row.callId}` : `#${row.seq} ${row.line.type}`;
  const body = $("detail-body");
  body.replaceChildren(el("p", { class: "summary", text: row.text }));
  const asked = row;
  const put = (node) => {
    if (this.selected === asked) body.append(node);
  };
  const failed = (what) => (error) => put(section(what, el("p", { class: "error", text: error.message })));
  if (row.detail === "tool") await this.toolDetail(row, put, failed);
  else if (row.detail === "turn") await this.turnDetail(row.line.payload.invocationId, row.line.payload.round, put, failed);
  else if (row.detail === "file") await this.fileDetail(row.path, row.seq, put, failed);
  const lines = row.detail === "tool" ? this.callEvents(row.callId) : [row.line];
  put(section(lines.length > 1 ? "Events" : "Event", ...lines.map((line) => pre(JSON.stringify(line, null, 2), "json"))));
};

/** The loaded journal lines about one tool call, oldest first. */
RunPage.prototype.callEvents = function callEvents(callId) {
  return Array.from(this.events.values())
    .filter((line) => line.payload && line.payload.callId === callId)
    .sort((a, b) => a.seq - b.seq);
};

/** The workspace path a `workspace:<path>#L…` resource reference names. */
function workspacePath(ref) {
  return ref.slice("workspace:".length).split("#")[0];
}

function filesUrl(path) {
  return `/files/${path.split("/").map(encodeURIComponent).join("/")}`;
}

RunPage.prototype.toolDetail = async function toolDetail(row, put, failed) {
  const outcome = row.outcome;
  const refs = outcome?.resourceRefs ?? [];
  const files = [...new Set(refs.filter((ref) => ref.startsWith("workspace:")).map(workspacePath))];
  if (outcome) {
    put(
      section(
        "Outcome",
        el(
          "p",
          { class: outcome.isError ? "error" : "ok" },
          outcome.isError ? `${outcome.errorCode ?? "tool.error"}: ${outcome.message ?? ""}` : "completed",
          ` · ${millis(outcome.elapsedMs)}`,
        ),
        ...refs.filter((ref) => !ref.startsWith("workspace:")).map((ref) => el("span", { class: "ref muted", text: ref })),
        // One file is shown below; several get a link each.
        ...(files.length > 1 ? files.map((path) => this.fileLink(path, row.outcomeSeq)) : []),
      ),
    );
  }
  try {
    const view = await this.turn(row.inv, row.round);
    const call = view.toolCalls?.find((item) => item.callId === row.callId);
    put(section(`Arguments (${call?.alias ?? row.toolId})`, pre(call ? prettyJson(call.argumentsPreview) : "(not in the turn)", "json")));
  } catch (error) {
    failed("Arguments")(error);
  }
  const path = this.resultPaths.get(row.callId);
  if (path) {
    try {
      const file = await this.api(filesUrl(path));
      put(section(`Result (${path})`, pre(prettyJson(file.text), "json")));
    } catch (error) {
      failed("Result")(error);
    }
  } else {
    put(section("Result", el("p", { class: "muted", text: row.outcome ? "No stored result in the loaded events." : "The call is still running." })));
  }
  // The file as the call left it: a write tool's outcome already counts its write.
  if (files.length === 1) await this.fileDetail(files[0], row.outcomeSeq, put, failed);
};

RunPage.prototype.turnDetail = async function turnDetail(invocation, round, put, failed) {
  try {
    const view = await this.turn(invocation ?? "inv_root", round);
    const parts = [];
    parts.push(el("p", { class: "muted", text: [view.model, view.finishReason, view.usage ? `${tokensLabel(view.usage)} tokens` : null].filter(Boolean).join(" · ") }));
    if (view.reasoning) {
      parts.push(el("h4", { text: `Reasoning (${view.reasoning.chars} chars${view.reasoning.truncated ? ", start shown" : ""})` }));
      parts.push(pre(view.reasoning.preview, "reasoning"));
    }
    parts.push(el("h4", { text: "Text" }), pre(view.assistantText || "(none)", "prose"));
    if (view.toolCalls?.length) {
      parts.push(el("h4", { text: "Tool calls" }));
      for (const call of view.toolCalls) parts.push(pre(`${call.alias} ${call.argumentsPreview}`, "json"));
    }
    put(section(`Model turn, round ${round}`, ...parts));
  } catch (error) {
    failed("Model turn")(error);
  }
};

/** Why a file cannot be shown at an event: not written yet, or its checkpoints pruned. */
const UNAVAILABLE_AT = new Set(["workspace.file_not_found", "workspace.checkpoints_pruned"]);

/** The workspace file as it stood at event `atSeq` (from the run's checkpoints), or as it is
 * now when no seq is known (a call still running). */
RunPage.prototype.fileDetail = async function fileDetail(path, atSeq, put, failed) {
  if (!path) return;
  const title = `Workspace file ${path}`;
  const at = Number.isInteger(atSeq) ? atSeq : null;
  try {
    const file = await this.api(`${filesUrl(path)}${query({ atSeq: at })}`);
    const when = at === null ? "as it is now" : `as of event #${at} (checkpoint ${file.checkpointId})`;
    put(
      section(
        title,
        el("p", { class: "muted file-facts", text: `${file.bytes} bytes · sha256 ${String(file.sha256).slice(0, 12)}… · ${when}` }),
        pre(file.text, "prose"),
      ),
    );
  } catch (error) {
    if (at !== null && error instanceof ApiError && UNAVAILABLE_AT.has(error.code)) {
      put(section(title, el("p", { class: "muted file-unavailable", text: `Not available at event #${at}: ${error.message}` })));
    } else {
      failed(title)(error);
    }
  }
};

RunPage.prototype.fileLink = function fileLink(path, atSeq) {
  return el("button", {
    type: "button",
    class: "link",
    text: `open ${path}`,
    onclick: () => {
      const body = $("detail-body");
      this.fileDetail(path, atSeq, (node) => body.append(node), (what) => (error) => body.append(el("p", { class: "error", text: `${what}: ${error.message}` })));
    },
  });
};

// ---------- run actions ----------

function wireRunPage() {
  const timeline = $("timeline");
  timeline.addEventListener("scroll", () => {
    if (!page) return;
    page.stickToBottom = timeline.scrollTop + timeline.clientHeight >= timeline.scrollHeight - ROW_H;
    page.queueRender();
  });
  window.addEventListener("resize", () => page?.queueRender());
  $("detail-close").addEventListener("click", closeDetail);
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") closeDetail();
  });
  $("show-all").addEventListener("change", () => {
    if (!page) return;
    // Rebuild the rows from every loaded event with the new filter.
    const lines = Array.from(page.events.values()).sort((a, b) => a.seq - b.seq);
    page.rows = [];
    page.callRows.clear();
    for (const line of lines) {
      const row = page.rowOf(line);
      if (row) page.rows.push(row);
    }
    page.queueRender();
  });
  $("cancel-run").addEventListener("click", async () => {
    if (!page) return;
    $("cancel-run").disabled = true;
    try {
      await page.api("/cancel", { method: "POST" });
    } catch (error) {
      showError(error);
      $("cancel-run").disabled = page.ended;
    }
  });
  $("guidance-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const text = $("guidance-text").value.trim();
    if (!page || !text) return;
    $("guidance-send").disabled = true;
    try {
      await page.api("/guidance", { method: "POST", body: { text, clientId: `web-${Date.now()}` } });
      $("guidance-text").value = "";
      notice("Guidance queued: the agent reads it with its next model request.", "info");
    } catch (error) {
      showError(error);
    } finally {
      $("guidance-send").disabled = page.ended;
    }
  });
}

// ---------- start ----------

takeToken();
wireStartForm();
wireRunPage();
window.addEventListener("hashchange", () => {
  if (/token=/.test(location.hash)) takeToken();
  route();
});
route();
