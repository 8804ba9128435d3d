package refgateway

import (
	"cmp"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

// Gateway is the reference gateway: an http.Handler serving the whole API.
// It is safe for concurrent use.
type Gateway struct {
	cfg      Config
	faults   map[string]bool    // names from Config.Faults, active on every request
	byKey    map[string]string  // bearer key → key kind
	lists    map[string][]model // key kind → model list, in listing order
	client   *http.Client
	maxBody  int64
	requests atomic.Int64
	panics   atomic.Int64 // recovered panics; tests assert it stays 0
	cache    *imageCache
	limiter  *limiter         // nil without Config.RateLimit
	routes   map[string]route // path → what serves it, made once by New
}

// New builds a Gateway. It fails on unknown fault names, duplicate or empty
// keys, extra models of an unknown kind, model names for unknown models,
// vendor words other than the neutral ones, and names that give one list
// two models of one name.
func New(cfg Config) (*Gateway, error) {
	cfg.Keys = cfg.Keys.withDefaults()
	faults := map[string]bool{}
	if err := addFaults(faults, cfg.Faults); err != nil {
		return nil, err
	}
	g := &Gateway{
		cfg:     cfg,
		faults:  faults,
		byKey:   map[string]string{},
		lists:   map[string][]model{},
		client:  cfg.HTTPClient,
		maxBody: cfg.MaxBodyBytes,
		cache:   sharedImageCache,
	}
	if g.client == nil {
		g.client = &http.Client{Timeout: 30 * time.Second}
	}
	if g.maxBody <= 0 {
		g.maxBody = DefaultMaxBodyBytes
	}
	if cfg.RateLimit.Enabled() {
		if err := cfg.RateLimit.validate(); err != nil {
			return nil, err
		}
		g.limiter = newLimiter(cfg.RateLimit)
	}
	if err := g.indexKeys(); err != nil {
		return nil, err
	}
	if err := g.listModels(); err != nil {
		return nil, err
	}
	g.routes = map[string]route{
		"/v1/models":             {http.MethodGet, epModels, (*call).models, cfg.Latency.Models},
		"/v1/chat/completions":   {http.MethodPost, epChat, (*call).chat, cfg.Latency.Chat},
		"/v1/messages":           {http.MethodPost, epMessages, (*call).messages, cfg.Latency.Messages},
		"/v1/images/generations": {http.MethodPost, epGenerations, (*call).generations, cfg.Latency.ImagesGenerations},
		"/v1/images/edits":       {http.MethodPost, epEdits, (*call).edits, cfg.Latency.ImagesEdits},
		"/v1/responses":          {http.MethodPost, epResponses, (*call).responses, cfg.Latency.Responses},
	}
	return g, nil
}

// withDefaults fills each empty key of k with its DefaultKeys value.
func (k Keys) withDefaults() Keys {
	def := DefaultKeys()
	return Keys{
		Text:     cmp.Or(k.Text, def.Text),
		Messages: cmp.Or(k.Messages, def.Messages),
		Image:    cmp.Or(k.Image, def.Image),
		Alt:      cmp.Or(k.Alt, def.Alt),
	}
}

// indexKeys maps each configured key to its kind; a key given for two kinds
// is an error.
func (g *Gateway) indexKeys() error {
	k := g.cfg.Keys
	for kind, key := range map[string]string{KindText: k.Text, KindMessages: k.Messages, KindImage: k.Image, KindAlt: k.Alt} {
		if _, dup := g.byKey[key]; dup {
			return fmt.Errorf("key %q is given for two key kinds", key)
		}
		g.byKey[key] = kind
	}
	return nil
}

// listModels builds each key kind's model list: the built-in models, then
// the extra models not among them, each under its served name (names.go).
// Two models of one list served under one name is an error.
func (g *Gateway) listModels() error {
	if err := checkModelNames(g.cfg.ModelNames, g.cfg.ExtraModels); err != nil {
		return err
	}
	if err := checkVendorWords(g.cfg.VendorWords); err != nil {
		return err
	}
	add := func(kind, spec string) error {
		m := model{ID: g.cfg.servedName(spec), Spec: spec, OwnedBy: ownerOf[kind], Created: modelsCreated, Family: kind}
		if other, dup := g.lookupModel(kind, m.ID); dup {
			return fmt.Errorf("models %s and %s are both served as %s", other.Spec, spec, m.ID)
		}
		g.lists[kind] = append(g.lists[kind], m)
		return nil
	}
	for _, kind := range keyKinds {
		for _, spec := range builtinModels[kind] {
			if err := add(kind, spec); err != nil {
				return err
			}
		}
	}
	for _, em := range g.cfg.ExtraModels {
		if _, ok := builtinModels[em.Kind]; !ok || em.ID == "" {
			return fmt.Errorf("extra model %q:%q: bad kind or empty id", em.Kind, em.ID)
		}
		if slices.ContainsFunc(g.lists[em.Kind], func(m model) bool { return m.Spec == em.ID }) {
			continue
		}
		if err := add(em.Kind, em.ID); err != nil {
			return err
		}
	}
	return nil
}

// Requests reports how many requests the gateway has received, whatever their
// path or outcome.
func (g *Gateway) Requests() int64 { return g.requests.Load() }

// dialect selects the error body shape.
type dialect int

const (
	dialectOpenAI dialect = iota
	dialectAnthropic
)

// call carries one request through the handlers.
type call struct {
	g       *Gateway
	w       http.ResponseWriter
	r       *http.Request
	faults  []*fault // active on this request
	ep      endpoint
	ans     answer // how a valid request is answered (see accept)
	kind    string // key kind of the caller
	dialect dialect
	wrote   bool
	// requestID names this call in headers and Anthropic error bodies.
	requestID string
}

// ServeHTTP routes a request: counting, panic recovery, auth, the rate
// limit, then the endpoint.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.requests.Add(1)
	c := &call{g: g, w: w, r: r, ans: plainAnswer, dialect: dialectOpenAI, requestID: "req_" + randHex(12)}
	if r.URL.Path == "/v1/messages" {
		c.dialect = dialectAnthropic
	}
	defer c.recoverPanic()

	faults := maps.Clone(g.faults)
	if err := addFaults(faults, r.Header.Values(FaultHeader)); err != nil {
		c.fail(http.StatusBadRequest, err.Error())
		return
	}
	c.faults = activeFaults(faults)
	if !c.identify() {
		return
	}
	rt, ok := g.routes[r.URL.Path]
	if !ok {
		c.fail(http.StatusNotFound, fmt.Sprintf("unknown path %s", r.URL.Path))
		return
	}
	if r.Method != rt.method {
		w.Header().Set("Allow", rt.method)
		c.fail(http.StatusMethodNotAllowed, fmt.Sprintf("method %s not allowed on %s", r.Method, r.URL.Path))
		return
	}
	if !c.rateLimited(rt.ep) {
		return
	}
	if !c.sleep(rt.lat) {
		return
	}
	c.ep = rt.ep
	if !c.routed() {
		return
	}
	rt.h(c)
}

// recoverPanic, deferred, answers 500 for a handler that panicked, as a
// last resort: a bug must never crash the server. Tests assert this never
// runs. http.ErrAbortHandler is passed on, as net/http means it.
func (c *call) recoverPanic() {
	v := recover()
	if v == nil {
		return
	}
	if v == http.ErrAbortHandler { //nolint:errorlint // sentinel compared by identity, as net/http does
		panic(v)
	}
	c.g.panics.Add(1)
	log.Printf("refgateway: panic serving %s %s: %v", c.r.Method, c.r.URL.Path, v)
	if !c.wrote {
		c.fail(http.StatusInternalServerError, "internal error")
	}
}

// identify sets the caller's key kind: the kind of its key, or the kind a
// fault serves a request without a valid key as. It reports false when
// there is neither and it has answered 401.
func (c *call) identify() bool {
	kind, ok := c.g.authenticate(c.r, c.dialect == dialectAnthropic)
	if !ok {
		kind = c.keylessKind()
		ok = kind != ""
	}
	if !ok {
		c.fail(http.StatusUnauthorized, "missing or invalid API key: send Authorization: Bearer <API_KEY>")
		return false
	}
	c.kind = kind
	return true
}

// route is what serves a path: its method, endpoint, handler and latency.
type route struct {
	method string
	ep     endpoint
	h      func(*call)
	lat    Range
}

// authenticate maps the bearer key to its kind. On /v1/messages the Anthropic
// header x-api-key is accepted too, so the official SDK works with its default
// auth option; the spec's Authorization: Bearer is always accepted.
func (g *Gateway) authenticate(r *http.Request, anthropic bool) (string, bool) {
	var key string
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, tok, ok := strings.Cut(h, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") {
			return "", false
		}
		key = strings.TrimSpace(tok)
	} else if anthropic {
		key = r.Header.Get("X-Api-Key")
	}
	if key == "" {
		return "", false
	}
	for k, kind := range g.byKey {
		if subtle.ConstantTimeCompare([]byte(k), []byte(key)) == 1 {
			return kind, true
		}
	}
	return "", false
}

// sleep waits for a delay from r, or until the client goes away (false).
func (c *call) sleep(r Range) bool {
	d := r.draw()
	if d <= 0 {
		return c.r.Context().Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-c.r.Context().Done():
		return false
	}
}

// errorTypes gives the error type and code for a status, per dialect.
func errorTypes(d dialect, status int) (typ, code string) {
	if d == dialectAnthropic {
		return anthropicErrorType(status), ""
	}
	return openAIErrorType(status)
}

// anthropicErrorType is the error.type of an Anthropic error body.
func anthropicErrorType(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return "authentication_error"
	case http.StatusForbidden:
		return "permission_error"
	case http.StatusNotFound:
		return "not_found_error"
	case http.StatusRequestEntityTooLarge:
		return "request_too_large"
	case http.StatusTooManyRequests:
		return "rate_limit_error"
	case http.StatusInternalServerError:
		return "api_error"
	default:
		return "invalid_request_error"
	}
}

// openAIErrorType is the error.type and error.code of an OpenAI error body
// (code "": null).
func openAIErrorType(status int) (typ, code string) {
	switch status {
	case http.StatusUnauthorized:
		return "invalid_request_error", "invalid_api_key"
	case http.StatusNotFound:
		return "invalid_request_error", "model_not_found"
	case http.StatusRequestEntityTooLarge:
		return "invalid_request_error", "request_too_large"
	case http.StatusMethodNotAllowed:
		return "invalid_request_error", "method_not_allowed"
	case http.StatusTooManyRequests:
		return "requests", "rate_limit_exceeded"
	case http.StatusInternalServerError:
		return "server_error", ""
	default:
		return "invalid_request_error", ""
	}
}

func (c *call) fail(status int, msg string) { c.failParam(status, "", msg) }

// failParam writes an error body in the dialect of the path (see package doc).
func (c *call) failParam(status int, param, msg string) {
	typ, code := errorTypes(c.dialect, status)
	var body any
	if c.dialect == dialectAnthropic {
		body = map[string]any{
			"type":       "error",
			"error":      map[string]any{"type": typ, "message": msg},
			"request_id": c.requestID,
		}
	} else {
		e := map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}
		if param != "" {
			e["param"] = param
		}
		if code != "" {
			e["code"] = code
		}
		body = map[string]any{"error": e}
	}
	c.writeJSON(status, body)
}

// writeJSON writes a JSON body. A success body has the Content-Type of the
// call's answer.
func (c *call) writeJSON(status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		// Only our own values reach here; they always marshal.
		b = []byte(`{"error":{"message":"encoding failure","type":"server_error","param":null,"code":null}}`)
		status = http.StatusInternalServerError
	}
	ct := "application/json"
	if status/100 == 2 {
		ct = c.ans.jsonType
	}
	h := c.w.Header()
	h.Set("Content-Type", ct)
	c.setRequestID(h)
	c.wrote = true
	c.w.WriteHeader(status)
	_, _ = c.w.Write(b)
}

// setRequestID labels the answer with the call's id, under both names in
// use: X-Request-Id, and request-id, which the official Anthropic SDK reads
// into its errors. Anthropic error bodies carry the same value.
func (c *call) setRequestID(h http.Header) {
	h.Set("X-Request-Id", c.requestID)
	h.Set("Request-Id", c.requestID)
}

// readBody reads the whole request body within the size limit. It refuses a
// declared oversize body before reading any of it, and stops reading an
// undeclared one at the limit. On failure it has answered and returns false.
func (c *call) readBody() ([]byte, bool) {
	if c.r.ContentLength > c.g.maxBody {
		c.fail(http.StatusRequestEntityTooLarge, fmt.Sprintf("request body of %d bytes exceeds the limit of %d bytes", c.r.ContentLength, c.g.maxBody))
		return nil, false
	}
	c.r.Body = http.MaxBytesReader(c.w, c.r.Body, c.g.maxBody)
	b, err := io.ReadAll(c.r.Body)
	if err != nil {
		c.bodyError(err)
		return nil, false
	}
	return b, true
}

// bodyError answers a failed body read: 413 at the limit, 400 otherwise.
func (c *call) bodyError(err error) {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		c.fail(http.StatusRequestEntityTooLarge, fmt.Sprintf("request body exceeds the limit of %d bytes", c.g.maxBody))
		return
	}
	c.fail(http.StatusBadRequest, "could not read request body: "+err.Error())
}

// readJSON reads the request body within the size limit and decodes it into
// v; on failure it has answered the request.
func (c *call) readJSON(v any) bool {
	body, ok := c.readBody()
	return ok && c.decodeJSON(body, v)
}

// decodeJSON parses a JSON object body into v; on failure it answers 400.
func (c *call) decodeJSON(body []byte, v any) bool {
	if err := json.Unmarshal(body, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			c.failParam(http.StatusBadRequest, te.Field, fmt.Sprintf("invalid type for %q: expected %s", te.Field, te.Type))
			return false
		}
		c.fail(http.StatusBadRequest, "could not parse the JSON body: "+err.Error())
		return false
	}
	return true
}

// errBad is a client error found while reading a request.
type errBad struct {
	status     int
	param, msg string
}

func (e *errBad) Error() string { return e.msg }

// bad is a 400 error of param.
func bad(param, format string, args ...any) error {
	return &errBad{status: http.StatusBadRequest, param: param, msg: fmt.Sprintf(format, args...)}
}

// answerErr answers an error from reading a request: an errBad with its
// status, the body limit with 413, anything else with 400.
func (c *call) answerErr(err error) {
	var eb *errBad
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		c.fail(http.StatusRequestEntityTooLarge, fmt.Sprintf("request body exceeds the limit of %d bytes", c.g.maxBody))
	case errors.As(err, &eb):
		c.failParam(eb.status, eb.param, eb.msg)
	default:
		c.fail(http.StatusBadRequest, err.Error())
	}
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// newUUID returns a random (version 4) UUID string.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}
