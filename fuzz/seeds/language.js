var x = 5
let s = "a" + 'b'
const d = {a: [1, 2.5, -3e2, 0x10], b: {c: null, e: undefined}, r: /ab+c/i}
x
d.a.length
use other
db
show dbs
show collections
print("hi", 1, {a: 1})
printjson({k: UUID("0123456789abcdef0123456789abcdef")})
db.getSiblingDB("test").getCollection("c").find({$or: [{a: 1}, {b: {$exists: false}}]}, {_id: 0})
db.c.updateMany({}, {$set: {z: 1}})
db.c.deleteOne({a: 1})
foo(
