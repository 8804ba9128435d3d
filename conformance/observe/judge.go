package observe

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/check"
	"github.com/gwconform/gwconform/conformance/modelid"
	"github.com/gwconform/gwconform/conformance/record"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
	"github.com/gwconform/gwconform/schemas"
)

// ClientRow is the row label of a client in the matrix: its product token.
func ClientRow(product string) string { return "client: " + product }

// Judge judges observed exchanges, one round at a time; it is safe for
// concurrent use.
type Judge struct {
	catalog *catalog.Catalog
	schemas *schemas.Set
	forms   verifiedForms
	rules   []rule
	limits  check.Limits
	opts    Options
	seq     atomic.Int64
	// lists are the last model list served to each key kind: what a later
	// list must differ from (2.1).
	lists struct {
		sync.Mutex
		byKey map[catalog.KeyKind][]string
	}
}

// Options are what a judgement is asked beyond the catalog.
type Options struct {
	// ClientOnly judges the client side alone (serve --judge: the
	// reference gateway answers, and is not on trial).
	ClientOnly bool
	// Strict also judges each answer within the verified rows by the
	// strict tier's readings (the official clients' needs), in a result of
	// its own, as the run's strict cases do.
	Strict bool
	// ModelMap gives the gateway's id of spec ids its traffic names
	// otherwise than the spec's ids in a vendor's words (--model-map, spec
	// id → gateway id).
	ModelMap map[string]string
	// Clients is the table of known clients that names each client by
	// library and version, and gives a library's own remedy for a breach
	// its default option makes (nil: clients are named by the User-Agent's
	// product token).
	Clients *catalog.Clients
	// BasePaths are the paths of the base URLs of a routed gateway
	// (--base-path, each "/" and segments): a request under one is
	// judged as that {base_url} plus the path (4).
	BasePaths []string
}

// CheckBasePath says what is wrong with a --base-path: it is a path of
// whole, non-empty segments, with no /v1 of its own.
func CheckBasePath(p string) error {
	switch {
	case !strings.HasPrefix(p, "/") || p == "/":
		return fmt.Errorf("--base-path %q: want a path such as /anthropic", p)
	case strings.HasSuffix(p, "/") || strings.Contains(p, "//"):
		return fmt.Errorf("--base-path %q: an empty segment is never part of a base URL", p)
	case p == "/v1" || strings.HasSuffix(p, "/v1"):
		return fmt.Errorf("--base-path %q: the base URL ends before /v1 (every path carries it)", p)
	}
	return nil
}

// rebase judges q's path as its declared base plus the path: the longest
// base it starts with, followed by a segment, is left out.
func (j *Judge) rebase(q *Request) {
	best := ""
	for _, b := range j.opts.BasePaths {
		if strings.HasPrefix(q.Path, b+"/") && len(b) > len(best) {
			best = b
		}
	}
	if best != "" {
		q.Path = strings.TrimPrefix(q.Path, best)
		q.Endpoint = endpointOf(q.Path)
	}
}

// New returns a judge that reads the verified rows from cat and validates
// answers with set.
func New(cat *catalog.Catalog, set *schemas.Set, limits check.Limits, opts Options) *Judge {
	j := &Judge{catalog: cat, schemas: set, forms: formsOf(cat, opts.ModelMap), rules: append(slices.Clone(clientRules), typeRules()...),
		limits: limits, opts: opts}
	j.lists.byKey = map[catalog.KeyKind][]string{}
	return j
}

// Round judges one recorded round alone: the client's result, and the
// gateway's when its answer can be judged. file is the recording's file
// that keeps the round (shown in the transcript); store reads its blobs.
// A Session judges a stream of rounds as a run judges its calls (attempts,
// controls).
func (j *Judge) Round(r record.Round, file string, store *record.Store) []results.Result {
	return j.exchange(r, file, store).results
}

// judged is one exchange judged: its results, the control a negative
// among them needs, and the control the exchange is when it was served.
type judged struct {
	results []results.Result
	needs   *control
	serves  *control
	shape   *shapeTry // an image input in one of the shapes a verified row tries
}

func (j *Judge) exchange(r record.Round, file string, store *record.Store) judged {
	id := fmt.Sprintf("observed-%06d", j.seq.Add(1))
	if r.OverCap > 0 {
		return judged{results: j.overCap(id, r, file, store)}
	}
	q, err := FromRound(r, store)
	if err != nil {
		res := j.base(id, r, file, nil)
		res.Model, res.Side, res.Status = ClientRow("unreadable request"), results.SideClient, vocab.StatusError
		res.Reasons = []vocab.Reason{{Check: "recording", Message: err.Error()}}
		return judged{results: []results.Result{res}}
	}
	j.rebase(q)
	q.forms = &j.forms
	base := j.base(id, r, file, q)
	client, owes := j.client(q, base)
	if owes != nil {
		// A request owed a refusal is its negative case's, on both sides.
		base.Feature = cmp.Or(j.forms.negatives[[2]string{q.Endpoint, owes.row}], base.Feature)
		client.Feature = base.Feature
	}
	out := judged{results: []results.Result{client}}
	if j.opts.ClientOnly {
		return out
	}
	// In a relay the gateway is on trial: the client's findings are
	// reported beside its verdict, as the run's own negative requests
	// break rules on purpose and the run's verdict is the gateway's.
	out.results[0].Aside = true
	gw, cs, ok := j.gateway(q, r, store, owes, client, base)
	if !ok {
		return out
	}
	out.results = append(out.results, gw)
	if j.opts.Strict && cs.Tier == vocab.TierVerified {
		res := base
		res.Side, res.Model = gw.Side, gw.Model
		out.results = append(out.results, j.strict(cs, q, r, store, res))
	}
	if shape := imageShape(q.Body); shape != "" && q.Endpoint == endpointMessages {
		if spec := j.forms.modelKey(q); slices.Contains(j.forms.imageShapes[spec], shape) {
			out.shape = &shapeTry{model: spec, shape: shape, served: gw.Served(), answer: gw}
		}
	}
	switch {
	case gw.Tier == vocab.TierNegative:
		out.needs = j.controlFor(q, owes)
	case client.Status == vocab.StatusPass && gw.Served():
		c := j.controlOf(q)
		out.serves = &c
	}
	return out
}

// overCap is an exchange recorded only up to the cap: one result per
// side, skipped, saying so. What was recorded is not the exchange, so
// nothing of it is judged: neither rule, nor answer, nor control.
func (j *Judge) overCap(id string, r record.Round, file string, store *record.Store) []results.Result {
	q, err := FromRound(r, store)
	if err != nil {
		q = nil // a body cut at the cap need not read; the client is then named by its row alone
	}
	base := j.base(id, r, file, q)
	base.Status = vocab.StatusSkip
	base.Reasons = []vocab.Reason{{Check: vocab.CheckOverCap, Expected: fmt.Sprintf("at most %d bytes of bodies", r.OverCap),
		Actual: "more: relayed whole, recorded up to the cap", Message: "not judged (over the cap)"}}
	client, model := base, r.Request.Model
	client.Side, client.Model = results.SideClient, ClientRow("unreadable request")
	if q != nil {
		client.Model, model = ClientRow(j.opts.Clients.Identify(q.Header).Row()), q.Model()
	}
	if j.opts.ClientOnly {
		return []results.Result{client}
	}
	client.Aside = true
	gw := base
	gw.Side, gw.Model = results.SideGateway, cmp.Or(model, "(no model)")
	return []results.Result{client, gw}
}

// base is what both sides' results share: the exchange, its feature, its
// times and its transcript.
func (j *Judge) base(id string, r record.Round, file string, q *Request) results.Result {
	res := results.Result{Case: id, Feature: "other", Tier: vocab.TierVerified, Observed: true, Started: r.Sent, Attempts: 1, Requests: 1,
		Key: r.Request.Key, Transcript: record.RoundTranscript(r, file),
		Request: &results.Request{Method: r.Request.Method, Path: r.Request.Path}}
	if q != nil {
		res.Feature = cmp.Or(j.forms.feature(q), featureOf(q))
	}
	if resp := r.Response; resp != nil {
		res.HTTPStatus = resp.Status
		res.TTFBMS = resp.Received.Sub(r.Sent).Milliseconds()
		res.DurationMS = resp.EndedMS
	}
	return res
}

// client judges the request against every rule that applies to it, and
// returns the answer the gateway owes it, if the spec states one.
func (j *Judge) client(q *Request, res results.Result) (results.Result, *owed) {
	client := j.opts.Clients.Identify(q.Header)
	res.Model, res.Side = ClientRow(client.Row()), results.SideClient
	var rows []string
	var owes *owed
	for _, ru := range j.rules {
		if ru.on != nil && !slices.Contains(ru.on, q.Endpoint) {
			continue
		}
		if _, sent := q.param(ru.member); ru.member != "" && !sent {
			continue
		}
		if !slices.Contains(rows, ru.row) {
			rows = append(rows, ru.row)
		}
		for _, b := range ru.broken(q) {
			message := fmt.Sprintf("the request breaks a rule on %s (spec %s: %s)", b.where, ru.row, j.sentence(ru.row))
			if remedy := client.Remedy(ru.row, q.Auth); remedy != "" {
				message += "; " + client.Client + "'s remedy: " + remedy
			}
			res.Reasons = append(res.Reasons, vocab.Reason{Check: "client", Where: b.where, Expected: b.expected, Actual: b.actual, Message: message})
			if owes == nil {
				owes = ru.owed
			}
		}
	}
	o, note := j.forms.retired(q)
	if o == nil {
		o, note = j.unlisted(q)
	}
	if o != nil {
		rows = append(rows, o.row)
		res.Notes = append(res.Notes, note)
		if owes == nil {
			owes = o
		}
	}
	res.Spec = strings.Join(rows, ", ")
	res.Status = vocab.StatusPass
	if len(res.Reasons) > 0 {
		res.Status = vocab.StatusFail
	}
	if len(res.Reasons) == 0 {
		// A broken request is a finding already: what it does beyond the
		// verified rows besides would only repeat it.
		res.Notes = append(res.Notes, j.forms.notes(q)...)
	}
	return res, owes
}

// sentence is a row's sentence, for a finding.
func (j *Judge) sentence(row string) string { return j.forms.sentence(row) }

// gateway judges the answer with the check stage, against what the
// request asks (gateway.go). ok is false when there is nothing to judge:
// no answer, an endpoint the spec does not show, or a request that
// breaks a rule whose answer the spec does not state. A request beyond
// the verified rows (the client's notes) is judged in the explore tier:
// reported, never deciding, since the spec guarantees it nothing; one
// within them, as the verified row it is.
func (j *Judge) gateway(q *Request, r record.Round, store *record.Store, o *owed, client, res results.Result) (results.Result, *catalog.Case, bool) {
	res.Side = results.SideGateway
	res.Model = q.Model()
	switch {
	case q.Endpoint == endpointModels:
		res.Model = "(" + q.Key + " key's list)"
	case res.Model == "":
		res.Model = "(no model)" // the request names none: the gateway's default serves it, or it is refused
	}
	switch {
	case r.Response == nil || q.Endpoint == "" || q.Endpoint == endpointResponses:
		return res, nil, false
	case client.Status == vocab.StatusFail && o == nil:
		return res, nil, false
	}
	cs := j.forms.gatewayCase(q, o, res.Feature)
	if o == nil && len(client.Notes) > 0 && !j.shapeServed(q, client, r) {
		// Beyond the verified rows, a listed model may refuse a request
		// (section 1): the answer is reported, as the explore tier
		// reports a declined capability. A request within them is owed
		// what its row owes: a refusal of it is a failure.
		cs.Tier = vocab.TierExplore
	}
	if q.Endpoint == endpointModels && cs.Tier == vocab.TierVerified {
		cs.Expect.DiffersFrom = j.forms.differs[q.Key]
		defer j.keepList(cs.Key, store, r)
	}
	return j.answer(cs, q, r, store, res, j.forms.listed[q.Key]), cs, true
}

// answer judges the answer of a round against a case with the check
// stage; named are the spec models a model list must name.
func (j *Judge) answer(cs *catalog.Case, q *Request, r record.Round, store *record.Store, res results.Result, named []string) results.Result {
	res.Tier, res.Spec = cs.Tier, cs.Spec
	resp, err := store.Response(&r)
	if err != nil {
		res.Status, res.Reasons = vocab.StatusError, []vocab.Reason{{Check: "recording", Message: err.Error()}}
		return res
	}
	defer resp.Body.Close()
	x := &check.Exchange{Case: cs, Request: &cs.Request, Model: q.Model(), Rows: j.catalog.Spec.RowsOf(cs.Refs),
		Schemas: j.schemas, Response: resp, Sent: r.Sent, Received: r.Response.Received, Started: r.Sent, Limits: j.limits, Cut: r.Cut != ""}
	if q.Endpoint == endpointModels && cs.Tier != vocab.TierExplore {
		x.Named, x.Others = named, j.otherLists(cs.Key, cs.Expect.DiffersFrom)
	}
	res.Reasons = check.Answer(x, &res)
	res.Status = check.Status(cs, resp.StatusCode, res.Reasons)
	if r.Error != "" && r.Cut == "" && res.Status == vocab.StatusPass {
		res.Status, res.Reasons = vocab.StatusFail, []vocab.Reason{{Check: "transport", Actual: r.Error, Message: "the answer ended in an error before its end"}}
	}
	return res
}

// strict judges an answer within the verified rows by the strict tier's
// readings, as the run's strict cases do beside their verified ones: the
// official clients' stream rules, the model used spelt as requested, a
// JSON media type, created the time of the exchange, and the models a
// key's list names though the spec names no list of it.
func (j *Judge) strict(verified *catalog.Case, q *Request, r record.Round, store *record.Store, res results.Result) results.Result {
	cs := *verified
	cs.Tier, cs.Expect.JSON = vocab.TierStrict, maps.Clone(verified.Expect.JSON)
	if cs.Expect.JSON == nil {
		cs.Expect.JSON = map[string]catalog.Matcher{}
	}
	if sse := verified.Expect.SSE; sse != nil {
		strict := *sse
		strict.Strict = true
		cs.Expect.SSE = &strict
	}
	switch q.Endpoint {
	case endpointChat, endpointMessages:
		if !q.Streams() {
			cs.Expect.JSON["model"] = catalog.Matcher{Model: catalog.ModelExact}
		}
	case endpointGenerations, endpointEdits:
		if !q.Streams() {
			cs.Expect.JSON["created"] = catalog.Matcher{UnixSeconds: "15m"}
		}
	}
	cs.Expect.DiffersFrom = nil
	res.Case += "-strict"
	return j.answer(&cs, q, r, store, res, j.forms.strictListed[q.Key])
}

// otherLists are the lists last served to the kinds a key's list must
// differ from, of those the traffic has shown.
func (j *Judge) otherLists(key catalog.KeyKind, kinds []catalog.KeyKind) map[catalog.KeyKind][]string {
	j.lists.Lock()
	defer j.lists.Unlock()
	out := map[catalog.KeyKind][]string{}
	for _, k := range kinds {
		if ids, ok := j.lists.byKey[k]; ok && k != key {
			out[k] = ids
		}
	}
	return out
}

// keepList keeps the ids of a model list served, for the lists after it.
func (j *Judge) keepList(key catalog.KeyKind, store *record.Store, r record.Round) {
	if r.Response.Status != 200 || r.Response.Body == nil {
		return
	}
	body, err := store.BodyBytes(r.Response.Body)
	if err != nil {
		return
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if json.Unmarshal(body, &list) != nil {
		return
	}
	ids := make([]string, 0, len(list.Data))
	for _, m := range list.Data {
		ids = append(ids, m.ID)
	}
	j.lists.Lock()
	defer j.lists.Unlock()
	j.lists.byKey[key] = ids
}

// unlisted is the 404 a messages request is owed for a model its key's
// list, seen earlier in the traffic, does not name (7: "messages with a
// retired or unknown model id: 404"), and the note that says so; nil when
// the list was not seen or names it.
func (j *Judge) unlisted(q *Request) (*owed, string) {
	model := q.Model()
	if q.Endpoint != endpointMessages || model == "" {
		return nil, ""
	}
	j.lists.Lock()
	ids, seen := j.lists.byKey[catalog.KeyKind(q.Key)]
	j.lists.Unlock()
	if !seen || slices.ContainsFunc(ids, func(id string) bool { return modelid.Same(id, model) }) {
		return nil, ""
	}
	return &owed{row: "7/messages-unknown-model", status: 404},
		fmt.Sprintf("%s is not in the %s key's model list this traffic showed: the spec states 404 for an unknown id (spec 7/messages-unknown-model)", model, q.Key)
}

// shapeServed says the request's only note is its image input's shape, in
// a shape a verified row tries, and the gateway served it: its answer is
// then owed the row's, as the run judges the shape its gateway took.
func (j *Judge) shapeServed(q *Request, client results.Result, r record.Round) bool {
	shape := imageShape(q.Body)
	return shape != "" && len(client.Notes) == 1 && strings.Contains(client.Notes[0], "4.3/image-shape") &&
		slices.Contains(j.forms.imageShapes[j.forms.modelKey(q)], shape) && r.Response.Status/100 == 2
}
