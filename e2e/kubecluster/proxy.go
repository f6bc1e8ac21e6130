package kubecluster

import (
	"io"
	"net"
	"sync"
)

// Proxy forwards TCP connections to the current backend; with none it
// closes them at once, as a stopped server's port would refuse them. A
// kubeconfig pointing at the proxy keeps working across API server
// restarts, and its address can be chosen before the server starts.
type Proxy struct {
	// Addr is where the proxy listens.
	Addr string
	l    net.Listener

	mu      sync.Mutex
	backend string
	conns   map[net.Conn]bool
}

// NewProxy listens on addr ("127.0.0.1:0" for any free port).
func NewProxy(addr string) (*Proxy, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	p := &Proxy{Addr: l.Addr().String(), l: l, conns: map[net.Conn]bool{}}
	go p.serve()
	return p, nil
}

// SetBackend switches the target; open connections are cut, so clients
// notice a stop at once.
func (p *Proxy) SetBackend(addr string) {
	p.mu.Lock()
	p.backend = addr
	conns := p.conns
	p.conns = map[net.Conn]bool{}
	p.mu.Unlock()
	for c := range conns {
		c.Close()
	}
}

// Close stops listening and cuts every connection.
func (p *Proxy) Close() {
	p.l.Close()
	p.SetBackend("")
}

func (p *Proxy) track(cs ...net.Conn) {
	p.mu.Lock()
	for _, c := range cs {
		p.conns[c] = true
	}
	p.mu.Unlock()
}

func (p *Proxy) serve() {
	for {
		c, err := p.l.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		backend := p.backend
		p.mu.Unlock()
		if backend == "" {
			c.Close()
			continue
		}
		b, err := net.Dial("tcp", backend)
		if err != nil {
			c.Close()
			continue
		}
		p.track(c, b)
		go func() {
			_, _ = io.Copy(b, c)
			b.Close()
		}()
		go func() {
			_, _ = io.Copy(c, b)
			c.Close()
		}()
	}
}
