// Compatibility placeholder for CANN's acl/acl_op.h: OpenACLNN does not provide the aclop API.
// Kept without an include guard, as CANN ships it, so a real aclop header can replace it cleanly.
