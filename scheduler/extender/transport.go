package extender

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"

	configv1 "k8s.io/kube-scheduler/config/v1"
)

// newTransport is upstream's makeTransport: the TLS settings as client-go's
// TLSConfigFor reads them (a CA or client certificate from data, else from
// the file; insecure together with a CA refused), and enableHTTPS without a
// CA means insecure. The URL's scheme is never changed: an http:// prefix
// stays plain HTTP whatever enableHTTPS says. Proxies come from the
// environment, as utilnet.SetTransportDefaults sets them.
func newTransport(c *configv1.ExtenderTLSConfig, enableHTTPS bool) (http.RoundTripper, error) {
	var tc configv1.ExtenderTLSConfig
	if c != nil {
		tc = *c
	}
	hasCA := len(tc.CAFile) > 0 || len(tc.CAData) > 0
	if enableHTTPS && !hasCA {
		tc.Insecure = true
	}
	t := &http.Transport{Proxy: http.ProxyFromEnvironment, ForceAttemptHTTP2: true}
	hasCert := (len(tc.CertFile) > 0 || len(tc.CertData) > 0) && (len(tc.KeyFile) > 0 || len(tc.KeyData) > 0)
	if !hasCA && !hasCert && !tc.Insecure && tc.ServerName == "" {
		return t, nil
	}
	if hasCA && tc.Insecure {
		return nil, errors.New("specifying a root certificates file with the insecure flag is not allowed")
	}
	cfg := &tls.Config{
		MinVersion:         tls.VersionTLS12,
		InsecureSkipVerify: tc.Insecure, //nolint:gosec // the configuration asks for it, as kube-scheduler honours it
		ServerName:         tc.ServerName,
	}
	if hasCA {
		ca, err := dataOrFile(tc.CAData, tc.CAFile)
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(ca) {
			return nil, fmt.Errorf("tlsConfig: no certificate found in the CA (caData/caFile %q)", tc.CAFile)
		}
		cfg.RootCAs = pool
	}
	if hasCert {
		cert, err := dataOrFile(tc.CertData, tc.CertFile)
		if err != nil {
			return nil, err
		}
		key, err := dataOrFile(tc.KeyData, tc.KeyFile)
		if err != nil {
			return nil, err
		}
		pair, err := tls.X509KeyPair(cert, key)
		if err != nil {
			return nil, fmt.Errorf("tlsConfig: client certificate: %w", err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	t.TLSClientConfig = cfg
	return t, nil
}

// dataOrFile is client-go's dataFromSliceOrFile: the data when given, else
// the file's content.
func dataOrFile(data []byte, file string) ([]byte, error) {
	if len(data) > 0 {
		return data, nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("tlsConfig: %w", err)
	}
	return b, nil
}
