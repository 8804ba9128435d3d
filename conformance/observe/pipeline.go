package observe

import (
	"hash/fnv"
	"runtime"
	"strconv"
	"sync"

	"github.com/gwconform/gwconform/conformance/record"
	"github.com/gwconform/gwconform/conformance/results"
)

// A Pipeline is a judging session as a stage: rounds arrive as a relay
// or a recording yields them, wait in a bounded queue, are judged by as
// many workers as asked, and are settled in the order they arrived
// (Session). Pushing never waits: a relay's client never waits on its
// judge, and what the queue cannot take is counted, never lost silently.
type Pipeline struct {
	session *Session
	judge   *Judge
	opts    PipelineOptions

	queue chan queued
	wg    sync.WaitGroup

	// mu guards what Push touches, so a relay's client never waits on
	// the judging: the count of rounds queued and the counts.
	mu     sync.Mutex
	seq    int
	counts Counts
	full   chan struct{}
	closed bool

	// order hands judged rounds to the session in the order they came:
	// next is the number of the next one, done holds those judged ahead.
	order    sync.Mutex
	next     int
	done     map[int]queued
	writeErr error // the first results.jsonl could not take
}

// PipelineOptions shape a pipeline.
type PipelineOptions struct {
	// Workers judge in parallel (0: one per core).
	Workers int
	// Queue is how many rounds may wait (0: 4096).
	Queue int
	// Sample is the share of the traffic judged, in (0, 1] (0: all).
	Sample float64
	// Max ends the judgement after that many rounds taken (0: none):
	// Full is closed then.
	Max int
}

// Counts say what became of the rounds a pipeline was offered.
type Counts struct {
	// Offered rounds; Judged of them; QueueFull the rounds the queue could
	// not take (the session is then incomplete); SampledOut those the
	// sample left out (by design: the session stays complete); PastMax
	// those after Max.
	Offered, Judged, QueueFull, SampledOut, PastMax int
	// Sample is the share asked (0: all).
	Sample float64
}

type queued struct {
	seq   int
	round record.Round
	file  string
	store *record.Store
	x     judged
}

// NewPipeline starts a pipeline of j's judgements: each result, once
// final, is written to w (results.jsonl, as exchanges end) and handed to
// say, one at a time.
func NewPipeline(j *Judge, opts PipelineOptions, w *results.Writer, say func(results.Result)) *Pipeline {
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if opts.Queue <= 0 {
		opts.Queue = 4096
	}
	p := &Pipeline{judge: j, opts: opts, queue: make(chan queued, opts.Queue), done: map[int]queued{}, full: make(chan struct{})}
	p.session = NewSession(j, func(r results.Result) {
		if err := w.Write(r); err != nil && p.writeErr == nil {
			p.writeErr = err
		}
		say(r)
	})
	p.counts.Sample = opts.Sample
	for range opts.Workers {
		p.wg.Add(1)
		go p.work()
	}
	return p
}

// Push offers a round of live traffic; it never waits, and a round the
// queue has no room for is counted (QueueFull).
func (p *Pipeline) Push(r record.Round, file string, store *record.Store) {
	p.offer(queued{round: r, file: file, store: store}, false)
}

// Put queues a round read back from a recording, waiting for room:
// nothing is lost to speed when nobody waits on the answer.
func (p *Pipeline) Put(r record.Round, file string, store *record.Store) {
	p.offer(queued{round: r, file: file, store: store}, true)
}

func (p *Pipeline) offer(q queued, wait bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.counts.Offered++
	switch {
	case p.closed || p.opts.Max > 0 && p.seq >= p.opts.Max:
		p.counts.PastMax++
		return
	case !p.sampled(p.counts.Offered):
		p.counts.SampledOut++
		return
	}
	q.seq = p.seq
	if wait {
		p.queue <- q
	} else {
		select {
		case p.queue <- q:
		default:
			p.counts.QueueFull++
			return
		}
	}
	p.seq++
	if p.opts.Max > 0 && p.seq == p.opts.Max {
		close(p.full)
	}
}

// sampled says the n-th round offered is in the sample: a fixed share of
// the traffic, spread evenly by a hash of its number rather than the
// first of each hundred.
func (p *Pipeline) sampled(n int) bool {
	if p.opts.Sample <= 0 || p.opts.Sample >= 1 {
		return true
	}
	h := fnv.New32a()
	h.Write([]byte(strconv.Itoa(n)))
	return float64(h.Sum32())/float64(1<<32) < p.opts.Sample
}

// Full is closed once Max rounds were taken.
func (p *Pipeline) Full() <-chan struct{} { return p.full }

// work judges rounds and hands them to the session in arrival order.
func (p *Pipeline) work() {
	defer p.wg.Done()
	for q := range p.queue {
		q.x = p.judge.exchange(q.round, q.file, q.store)
		p.order.Lock()
		p.done[q.seq] = q
		for {
			next, ok := p.done[p.next]
			if !ok {
				break
			}
			delete(p.done, p.next)
			p.next++
			p.session.take(next.round, next.x)
		}
		p.order.Unlock()
	}
}

// Close judges what is queued, settles what waits (Session.Close) and
// says what became of the rounds offered, and the first error writing a
// result met (the writer stays open: its owner closes it).
func (p *Pipeline) Close() (Counts, error) {
	p.mu.Lock()
	if !p.closed {
		p.closed = true
		close(p.queue)
	}
	p.mu.Unlock()
	p.wg.Wait()
	p.session.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.counts
	c.Judged = p.next // every round handed to the session
	return c, p.writeErr
}
