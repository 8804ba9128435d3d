package refgateway

// model is one entry of a key's model list.
type model struct {
	ID string // the name it is listed, requested and answered under
	// Spec is its id in the spec (or as --extra-model gives it): what its
	// behaviour is chosen by. It is ID unless the model is renamed (names.go).
	Spec    string
	OwnedBy string
	Created int64
	Family  string // key kind whose behaviour it has
}

// keyKinds are the key kinds, in the order lists of every kind are given.
var keyKinds = []string{KindText, KindMessages, KindImage, KindAlt}

// Built-in model lists per key kind (spec sections 1 and 2.1). The first
// entry of each list is the key's verified model that the model-missing
// fault leaves out.
var builtinModels = map[string][]string{
	KindText:     {modelChat, "gen-5.6-luna", "gen-5.6-sol", "gen-5.6-terra", "gen-6-astra"},
	KindMessages: {modelMessages, "msg-opus-5", "msg-haiku-4-5-20251001"},
	KindImage:    {modelImage2, modelImageFlare, "gen-image-2.5-sunburst"},
	KindAlt:      {"alt-flash", "alt-v4-pro"},
}

var ownerOf = map[string]string{KindText: "gen", KindMessages: "msg", KindImage: "gen", KindAlt: "alt"}

// modelsCreated is a fixed creation time so that listings are reproducible.
const modelsCreated = 1767225600 // 2026-01-01T00:00:00Z

// models answers GET /v1/models (4.1) with the model list of 2.1: the
// models visible to the calling key, which differ per key (2.1, 5 rule 2).
func (c *call) models() {
	c.accept()
	list := c.g.lists[c.kind]
	data := make([]any, 0, len(list))
	for _, m := range list {
		data = append(data, m.record())
	}
	c.reply(map[string]any{"object": "list", "data": data})
}

// record is m's entry in a model list (2.1).
func (m model) record() map[string]any {
	return map[string]any{"id": m.ID, "object": "model", "owned_by": m.OwnedBy, "created": m.Created}
}

// lookupModel finds the model named id in the caller's model list.
// A model a fault leaves unserved is not found.
func (c *call) lookupModel(id string) (model, bool) {
	m, found := c.g.lookupModel(c.kind, id)
	if !found || c.unserved(m) {
		return model{}, false
	}
	return m, true
}

// lookupModel finds the model named id in the model list of key kind kind,
// and with Config.AnyVendorName, the model an id names in a vendor's
// words, answered under the id sent.
func (g *Gateway) lookupModel(kind, id string) (model, bool) {
	for _, m := range g.lists[kind] {
		if m.ID == id {
			return m, true
		}
	}
	if !g.cfg.AnyVendorName {
		return model{}, false
	}
	if spec := vendorsRead.neutralID(id); spec != "" {
		for _, m := range g.lists[kind] {
			if m.Spec == spec {
				m.ID = id
				return m, true
			}
		}
	}
	return model{}, false
}

// specModel is the built-in model of key kind kind whose spec id is spec,
// under the name it is served as: the model serving a request that names
// none, or that a fault names.
func (g *Gateway) specModel(kind, spec string) model {
	for _, m := range g.lists[kind] {
		if m.Spec == spec {
			return m
		}
	}
	panic("refgateway: no built-in model " + spec + " for key kind " + kind)
}

// unknownModel is the error answering a model outside the caller's list, or
// of another family than the endpoint serves: a retired or unknown model id
// returns 404 (9; section 7 states it for messages). It is nil when a fault
// lets the request through: the caller then serves its default model.
func (c *call) unknownModel(id string) error {
	r := ruleKnownOtherModel
	if c.ep == epMessages {
		r = ruleKnownModel
	}
	return c.violation(r, "model", "model %q does not exist or is not available to this key", id)
}
