package refgateway

import (
	"container/list"
	"sync"
)

// imageCache keeps recently encoded images. Pictures are a pure function of
// the request, so identical requests (repeated test cases, previews shared by
// streams, load tests) reuse the encoded bytes instead of rendering 1–1.5
// megapixels again. Bounded by total bytes, least recently used evicted.
// sharedImageCache serves every Gateway of the process. Its keys hold
// everything the encoded bytes depend on (the seed hashes model, prompt,
// size, reference and mask bytes; faults that change a picture change the
// key), so gateways with different configurations can share it safely, and
// a test binary that starts many gateways encodes each picture once.
var sharedImageCache = newImageCache(128 << 20)

type imageCache struct {
	mu    sync.Mutex
	limit int
	used  int
	ll    *list.List
	items map[string]*list.Element
}

type cacheEntry struct {
	key string
	val []byte
}

func newImageCache(limit int) *imageCache {
	return &imageCache{limit: limit, ll: list.New(), items: map[string]*list.Element{}}
}

// get returns the cached bytes; callers must not modify them.
func (c *imageCache) get(key string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[key]; ok {
		c.ll.MoveToFront(e)
		return e.Value.(*cacheEntry).val, true
	}
	return nil, false
}

func (c *imageCache) put(key string, val []byte) {
	if len(val) > c.limit/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.items[key]; ok {
		return
	}
	c.items[key] = c.ll.PushFront(&cacheEntry{key: key, val: val})
	c.used += len(val)
	for c.used > c.limit {
		e := c.ll.Back()
		ent := e.Value.(*cacheEntry)
		c.ll.Remove(e)
		delete(c.items, ent.key)
		c.used -= len(ent.val)
	}
}
