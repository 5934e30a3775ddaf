import { describe, expect, it } from "vitest";
import {
  type AddressClass,
  classifyAddress,
  isForbiddenAddress,
} from "../../src/policy/address.js";

const table: [string, AddressClass][] = [
  // IPv4
  ["8.8.8.8", "public"],
  ["93.184.216.34", "public"],
  ["1.1.1.1", "public"],
  ["0.0.0.0", "unspecified"],
  ["0.1.2.3", "unspecified"],
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback"],
  ["127.0.0.2", "loopback"],
  ["10.0.0.1", "private"],
  ["10.255.255.255", "private"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["172.15.255.255", "public"],
  ["172.32.0.0", "public"],
  ["192.168.1.1", "private"],
  ["192.167.255.255", "public"],
  ["100.64.0.1", "cgnat"],
  ["100.127.255.255", "cgnat"],
  ["100.128.0.0", "public"],
  ["100.63.255.255", "public"],
  ["169.254.169.254", "link-local"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.255", "multicast"],
  ["240.0.0.1", "reserved"],
  ["255.255.255.255", "reserved"],
  ["192.0.2.10", "reserved"],
  ["198.51.100.7", "reserved"],
  ["203.0.113.99", "reserved"],
  ["198.18.0.1", "reserved"],
  ["198.19.255.255", "reserved"],
  ["198.20.0.0", "public"],
  ["192.0.0.8", "reserved"],
  // IPv6
  ["::", "unspecified"],
  ["::1", "loopback"],
  ["[::1]", "loopback"],
  ["0:0:0:0:0:0:0:1", "loopback"],
  ["::ffff:127.0.0.1", "loopback"],
  ["::ffff:7f00:1", "loopback"],
  ["[::ffff:7f00:1]", "loopback"],
  ["::ffff:10.1.2.3", "private"],
  ["::ffff:0a01:0203", "private"],
  ["::ffff:8.8.8.8", "public"],
  ["::ffff:169.254.169.254", "link-local"],
  ["::ffff:0.0.0.0", "unspecified"],
  ["64:ff9b::7f00:1", "loopback"],
  ["64:ff9b::127.0.0.1", "loopback"],
  ["64:ff9b::c0a8:101", "private"],
  ["64:ff9b::808:808", "public"],
  ["64:ff9b:1::1", "reserved"],
  ["::127.0.0.1", "reserved"], // deprecated IPv4-compatible
  ["::2", "reserved"],
  ["fc00::1", "private"],
  ["fd12:3456:789a::1", "private"],
  ["fe80::1", "link-local"],
  ["fe80::1%eth0", "link-local"],
  ["febf::1", "link-local"],
  ["fec0::1", "private"],
  ["ff02::1", "multicast"],
  ["2001:db8::1", "reserved"],
  ["3fff::1", "reserved"],
  ["2001::1", "reserved"],
  ["2002:7f00:1::1", "reserved"],
  ["100::1", "reserved"],
  ["2606:4700:4700::1111", "public"],
  ["2001:4860:4860::8888", "public"],
  ["2600:1f18::1", "public"],
  ["4000::1", "reserved"],
  ["FE80::ABCD", "link-local"],
  // Not an address
  ["", "invalid"],
  ["localhost", "invalid"],
  ["example.com", "invalid"],
  ["1.2.3", "invalid"],
  ["010.0.0.1", "invalid"],
  ["256.1.1.1", "invalid"],
  ["0x7f.0.0.1", "invalid"],
  ["::ffff:127.0.0.1:80", "invalid"],
  ["1::2::3", "invalid"],
];

describe("classifyAddress (address guard)", () => {
  it.each(table)("P3: %s is %s", (ip, cls) => {
    expect(classifyAddress(ip)).toBe(cls);
    expect(isForbiddenAddress(ip)).toBe(cls !== "public");
  });

  it("P3: every 127.0.0.0/8 address the loopback fleet uses is forbidden", () => {
    for (let last = 0; last < 256; last++) {
      expect(isForbiddenAddress(`127.0.0.${last}`)).toBe(true);
      expect(isForbiddenAddress(`::ffff:127.0.0.${last}`)).toBe(true);
    }
  });
});
