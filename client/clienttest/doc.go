// Package clienttest holds what the tests of the clients under test
// (client, client/java, client/franz) check of the histories they record.
// It must not know any client: it reads histories only.
package clienttest
