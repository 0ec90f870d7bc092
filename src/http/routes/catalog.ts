// Tag "business", the catalog: a business's products (own or by phone, paged; Z-API's GET and its
// POST "V2" with the cursor in the body), one product, create/edit and delete, the cart setting and
// collections; and, tag "messages", product and catalog messages (queued like every send).
import type { FastifyInstance } from 'fastify';
import { Type, type FastifyPluginAsyncTypebox, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { MAX_IMAGES, MAX_PRODUCT_IDS, PRODUCTS_PAGE, type CatalogService } from '../../services/catalog-service.js';
import { instanceOf } from '../auth.js';
import { errorResponses, named, Phone, SendCommonFields, SendResult } from '../schemas/common.js';
import { EXAMPLE_IMAGE } from '../schemas/examples.js';

const tags = ['business'];
const PHONE = '5511999999999';
const PRODUCT = '4741575945866725';
const COLLECTION = '1072603710847740';
const CURSOR = 'MTAw';
const BUSINESS_ONLY = 'Only a WhatsApp Business account has a catalog: on a personal account this answers 403 `WhatsApp Business account required`.';

const Id = (description: string, example: string) => Type.String({ minLength: 1, maxLength: 32, pattern: '^[0-9]+$', description, examples: [example] });
const ProductIds = Type.Array(Type.String({ minLength: 1, maxLength: 32, pattern: '^[0-9]+$' }), { minItems: 1, maxItems: MAX_PRODUCT_IDS, description: 'Product ids (GET …/catalogs).' });
const Cursor = Type.Optional(Type.String({ maxLength: 2048, description: 'The `nextCursor` of the previous page.', examples: [CURSOR] }));

const ProductRow = Type.Object({
  availability: Type.Literal('in stock'),
  id: Type.String(),
  retailerId: Type.Union([Type.String(), Type.Null()]),
  description: Type.String(),
  price: Type.String({ description: 'Thousandths of the currency unit, as WhatsApp keeps it ("20000" is 20.00).' }),
  salePrice: Type.Null({ description: 'zapgate: always null (a linked device does not see sale prices).' }),
  currency: Type.String(),
  name: Type.String(),
  quantity: Type.Null(),
  images: Type.Array(Type.String(), { description: 'Image URLs on WhatsApp\'s CDN.' }),
  isHidden: Type.Boolean({ description: 'zapgate: hidden from customers (only the business sees it).' }),
});
const EXAMPLE_PRODUCT = {
  availability: 'in stock' as const,
  id: PRODUCT,
  retailerId: '002',
  description: 'Mouse description',
  price: '100000',
  salePrice: null,
  currency: 'BRL',
  name: 'Mouse',
  quantity: null,
  images: ['https://mmg.whatsapp.net/v/t45.5328-4/mouse.jpg'],
  isHidden: false,
};

const Catalog = named(
  'Catalog',
  'A page of the business\'s products (hidden ones only in the account\'s own catalog) and whether its cart is on; `nextCursor` (zapgate) asks for the next page, null on the last.',
  Type.Object(
    { cartEnabled: Type.Boolean(), products: Type.Array(ProductRow), nextCursor: Type.Union([Type.String(), Type.Null()]) },
    { examples: [{ cartEnabled: true, products: [EXAMPLE_PRODUCT], nextCursor: null }] },
  ),
);
const OneProduct = named(
  'CatalogProduct',
  'One product of the account\'s catalog. `catalogId` is null: a linked device is not told the catalog\'s own id.',
  Type.Composite([Type.Omit(ProductRow, ['quantity']), Type.Object({ cartEnabled: Type.Boolean(), catalogId: Type.Null() })], {
    examples: [{ ...(({ quantity: _q, ...p }) => p)(EXAMPLE_PRODUCT), cartEnabled: true, catalogId: null }],
  }),
);
const ProductSaved = named('ProductSaved', 'The product as the network saved it: its id.', Type.Object({ id: Type.String() }, { examples: [{ id: PRODUCT }] }));
const Success = named('CatalogSuccess', 'Done on the network.', Type.Object({ success: Type.Literal(true) }, { examples: [{ success: true }] }));
const CollectionCreated = named('CollectionCreated', 'The new collection\'s id.', Type.Object({ collectionId: Type.String() }, { examples: [{ collectionId: COLLECTION }] }));
const CollectionChanged = named(
  'CollectionChanged',
  'Done; `collectionId` is the collection\'s id from now on (WhatsApp gives a collection a new id when its products change).',
  Type.Object({ success: Type.Literal(true), collectionId: Type.String() }, { examples: [{ success: true, collectionId: '1798362193933497' }] }),
);
const CollectionList = named(
  'CollectionList',
  'The account\'s collections, all in one page (`nextCursor` is null).',
  Type.Object(
    { nextCursor: Type.Null(), collections: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), status: Type.String({ description: 'WhatsApp\'s review: APPROVED, PENDING or REJECTED.' }) })) },
    { examples: [{ nextCursor: null, collections: [{ id: COLLECTION, name: 'Summer', status: 'APPROVED' }] }] },
  ),
);
const CollectionProducts = named(
  'CollectionProducts',
  'The products of the collection (hidden ones only for their own business); `price` in thousandths of the currency unit.',
  Type.Array(
    Type.Object({ id: Type.String(), name: Type.String(), description: Type.String(), price: Type.Number(), currency: Type.String(), images: Type.Array(Type.Object({ url: Type.String() })) }),
    { examples: [[{ id: PRODUCT, name: 'Mouse', description: 'Mouse description', price: 100000, currency: 'BRL', images: [{ url: 'https://mmg.whatsapp.net/v/t45.5328-4/mouse.jpg' }] }]] },
  ),
);

const PhoneParams = Type.Object({ phone: Type.String({ minLength: 1, maxLength: 32, description: 'The business\'s number with country code.', examples: [PHONE] }) }, { additionalProperties: true });
const ProductParams = Type.Object({ productId: Id('Product id.', PRODUCT) }, { additionalProperties: true });
const CollectionParams = Type.Object({ collectionId: Id('Collection id.', COLLECTION) }, { additionalProperties: true });
const CursorQuery = Type.Object({ nextCursor: Cursor });
const CursorBody = Type.Object({ nextCursor: Cursor }, { examples: [{}] });

const std = (...extra: number[]) => errorResponses(403, 409, 422, 504, ...extra);

function catalogRoutes(catalog: CatalogService, mediaBodyLimit: number): FastifyPluginAsyncTypebox {
  return async (app) => {
    const own = 'The account\'s own catalog, ' + PRODUCTS_PAGE + ' products a page (hidden products included). ' + BUSINESS_ONLY;
    const other = `Any WhatsApp Business number's catalog (the account's own too), ${PRODUCTS_PAGE} products a page; customers do not see hidden products. A number that is not a business one is 422.`;
    app.get('/catalogs', { schema: { tags, 'x-zapgate-scope': 'read', operationId: 'business_get-products', summary: 'The account\'s catalog', description: own, querystring: CursorQuery, response: { 200: Catalog, ...std() } } }, async (r) =>
      catalog.products(instanceOf(r).id, null, r.query.nextCursor),
    );
    app.post('/catalogs', { schema: { tags, 'x-zapgate-scope': 'read', operationId: 'business_get-products-v2', summary: 'The account\'s catalog (cursor in the body)', description: `${own} Z-API's V2: the cursor in the body, for cursors too long for a URL.`, body: CursorBody, response: { 200: Catalog, ...std() } } }, async (r) =>
      catalog.products(instanceOf(r).id, null, r.body.nextCursor),
    );
    app.get('/catalogs/:phone', { schema: { tags, 'x-zapgate-scope': 'read', operationId: 'business_get-products-phone', summary: 'A business\'s catalog', description: other, params: PhoneParams, querystring: CursorQuery, response: { 200: Catalog, ...std() } } }, async (r) =>
      catalog.products(instanceOf(r).id, r.params.phone, r.query.nextCursor),
    );
    app.post('/catalogs/:phone', { schema: { tags, 'x-zapgate-scope': 'read', operationId: 'business_get-products-phone-v2', summary: 'A business\'s catalog (cursor in the body)', description: `${other} Z-API's V2: the cursor in the body.`, params: PhoneParams, body: CursorBody, response: { 200: Catalog, ...std() } } }, async (r) =>
      catalog.products(instanceOf(r).id, r.params.phone, r.body.nextCursor),
    );
    app.get('/products/:productId', { schema: { tags, 'x-zapgate-scope': 'read', operationId: 'business_get-product-id', summary: 'One product of the account\'s catalog', description: `404 when the catalog has no such product. ${BUSINESS_ONLY}`, params: ProductParams, response: { 200: OneProduct, ...std() } } }, async (r) =>
      catalog.product(instanceOf(r).id, r.params.productId),
    );
    app.post(
      '/products',
      {
        bodyLimit: mediaBodyLimit,
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'business_edit-product',
          summary: 'Create a product, or change one',
          description:
            `Without \`id\` a new product is created; with \`id\` (zapgate) that product is changed, every field replaced. \`price\` is in currency units (20 is 20.00; WhatsApp keeps thousandths, so reads show "20000"). ` +
            `\`images\` (1–${MAX_IMAGES}): https URLs or data URIs, fetched by the gateway under the address guard and checked like every outgoing image, then uploaded to WhatsApp; URLs already on WhatsApp's CDN (from a read) are kept as they are. ` +
            `\`salePrice\` is accepted and not sent: WhatsApp's product as a linked device edits it has no sale price. ${BUSINESS_ONLY}`,
          body: Type.Object(
            {
              id: Type.Optional(Type.String({ minLength: 1, maxLength: 32, pattern: '^[0-9]+$', description: 'zapgate: the product to change (absent: create).' })),
              name: Type.String({ minLength: 1, maxLength: 200 }),
              price: Type.Number({ minimum: 0, maximum: 1e12 }),
              currency: Type.String({ minLength: 3, maxLength: 3, description: 'ISO 4217, e.g. BRL.' }),
              description: Type.String({ maxLength: 5000 }),
              images: Type.Array(Type.String({ minLength: 1 }), { minItems: 1, maxItems: MAX_IMAGES }),
              isHidden: Type.Optional(Type.Boolean()),
              salePrice: Type.Optional(Type.Number({ minimum: 0 })),
              retailerId: Type.Optional(Type.String({ maxLength: 100 })),
              url: Type.Optional(Type.String({ maxLength: 2048 })),
            },
            { examples: [{ currency: 'BRL', description: 'A product description', images: [EXAMPLE_IMAGE], isHidden: false, name: 'My first product', price: 20, salePrice: 18, retailerId: '002', url: 'https://z-api.io' }] },
          ),
          response: { 200: ProductSaved, ...std(413) },
        },
      },
      async (r) => catalog.saveProduct(instanceOf(r).id, r.body),
    );
    app.delete('/products/:productId', { schema: { tags, 'x-zapgate-scope': 'manage', operationId: 'business_delete-product', summary: 'Delete a product', description: `It leaves the catalog and its collections. 404 when there is no such product. ${BUSINESS_ONLY}`, params: ProductParams, response: { 200: Success, ...std() } } }, async (r) =>
      catalog.deleteProduct(instanceOf(r).id, r.params.productId),
    );
    app.post(
      '/catalogs/config',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'business_save-catalog-config',
          summary: 'Turn the catalog\'s cart on or off',
          description: `Customers can add products to a cart and send it as an order when it is on; catalog reads show it as \`cartEnabled\`. ${BUSINESS_ONLY}`,
          body: Type.Object({ cartEnabled: Type.Boolean() }, { examples: [{ cartEnabled: true }] }),
          response: { 200: Success, ...std() },
        },
      },
      async (r) => catalog.setCart(instanceOf(r).id, r.body.cartEnabled),
    );
    app.post(
      '/catalogs/collection',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'business_create-collection',
          summary: 'Create a collection',
          description: `A named group of the catalog's products. Every id must be a product of the catalog (422 otherwise). ${BUSINESS_ONLY}`,
          body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }), productIds: ProductIds }, { examples: [{ name: 'Summer', productIds: [PRODUCT] }] }),
          response: { 200: CollectionCreated, ...std() },
        },
      },
      async (r) => catalog.createCollection(instanceOf(r).id, r.body.name, r.body.productIds),
    );
    app.get('/catalogs/collection', { schema: { tags, 'x-zapgate-scope': 'read', operationId: 'business_list-collections', summary: 'The account\'s collections', description: `With WhatsApp's review status of each. ${BUSINESS_ONLY}`, querystring: CursorQuery, response: { 200: CollectionList, ...std() } } }, async (r) =>
      catalog.collections(instanceOf(r).id, r.query.nextCursor),
    );
    app.post(
      '/catalogs/collection-edit/:collectionId',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'business_edit-collection',
          summary: 'Rename a collection',
          description: `404 when the account has no such collection. ${BUSINESS_ONLY}`,
          params: CollectionParams,
          body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) }, { examples: [{ name: 'Summer sale' }] }),
          response: { 200: CollectionChanged, ...std() },
        },
      },
      async (r) => catalog.renameCollection(instanceOf(r).id, r.params.collectionId, r.body.name),
    );
    app.delete('/catalogs/collection/:collectionId', { schema: { tags, 'x-zapgate-scope': 'manage', operationId: 'business_delete-collection', summary: 'Delete a collection', description: `Its products stay in the catalog. 404 when there is no such collection. ${BUSINESS_ONLY}`, params: CollectionParams, response: { 200: Success, ...std() } } }, async (r) =>
      catalog.deleteCollection(instanceOf(r).id, r.params.collectionId),
    );
    for (const [action, summary] of [['add', 'Add products to a collection'], ['remove', 'Take products out of a collection']] as const) {
      app.post(
        `/catalogs/collection/${action}-product`,
        {
          schema: {
            tags,
            'x-zapgate-scope': 'manage',
            operationId: `business_${action === 'add' ? 'add-product-to' : 'remove-product-from'}-collection`,
            summary,
            description: `WhatsApp gives the collection a new id: use the \`collectionId\` answered from now on. 404 when there is no such collection. ${BUSINESS_ONLY}`,
            body: Type.Object({ collectionId: Id('Collection id.', COLLECTION), productIds: ProductIds }, { examples: [{ collectionId: COLLECTION, productIds: [PRODUCT] }] }),
            response: { 200: CollectionChanged, ...std() },
          },
        },
        async (r) => catalog.changeCollection(instanceOf(r).id, r.body.collectionId, r.body.productIds, action),
      );
    }
    app.get(
      '/catalogs/collection-products/:phone',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'read',
          operationId: 'business_list-collection-products',
          summary: 'The products of a business\'s collection',
          description: 'Any WhatsApp Business number (the account\'s own too). 404 when the business has no such collection; a number that is not a business one is 422.',
          params: PhoneParams,
          querystring: Type.Object({ collectionId: Id('Collection id.', COLLECTION), nextCursor: Cursor }),
          response: { 200: CollectionProducts, ...std() },
        },
      },
      async (r) => catalog.collectionProducts(instanceOf(r).id, r.params.phone, r.query.collectionId, r.query.nextCursor),
    );
  };
}

/** send-product and send-catalog (tag "messages"): queued like every send, after the catalog is read. */
function catalogSendRoutes(catalog: CatalogService): FastifyPluginAsyncTypebox {
  const mtags = ['messages'];
  const sendResponses = { 200: SendResult, ...errorResponses(409, 415, 422, 504, 507) };
  const common = { phone: Phone, delayMessage: SendCommonFields.delayMessage, delayTyping: SendCommonFields.delayTyping, messageId: SendCommonFields.messageId, scheduledAt: SendCommonFields.scheduledAt };
  return async (app) => {
    app.post(
      '/send-product',
      {
        schema: {
          tags: mtags,
          'x-zapgate-scope': 'send',
          operationId: 'messages_send-product',
          summary: 'Send a product of a catalog',
          description:
            'WhatsApp\'s product message (the product card: picture, name, price, and a link to it in the catalog). The product is read from `catalogPhone`\'s catalog when the request comes (so this needs a connected instance: 409 otherwise; a product that is not there is 404), then the message is queued.',
          body: Type.Object({ ...common, catalogPhone: Phone, productId: Id('Product id (GET …/catalogs/{phone}).', PRODUCT) }, { examples: [{ phone: PHONE, catalogPhone: PHONE, productId: PRODUCT }] }),
          response: sendResponses,
        },
      },
      async (r) => {
        const { catalogPhone, productId, ...c } = r.body;
        return catalog.sendProduct(instanceOf(r), c, catalogPhone, productId);
      },
    );
    app.post(
      '/send-catalog',
      {
        schema: {
          tags: mtags,
          'x-zapgate-scope': 'send',
          operationId: 'messages_send-catalog',
          summary: 'Send a link to a business\'s catalog',
          description:
            'As WhatsApp shares a catalog: its link `https://wa.me/c/<catalogPhone>` with a preview (`title`, `catalogDescription`, and the first product\'s picture), after `message` when given. `translation` sets the default title and description (EN or PT). The catalog is read when the request comes: it must have products (422 otherwise); 409 when not connected.',
          body: Type.Object(
            {
              ...common,
              catalogPhone: Phone,
              translation: Type.Optional(Type.Union([Type.Literal('EN'), Type.Literal('PT')])),
              message: Type.Optional(Type.String({ maxLength: 4096 })),
              title: Type.Optional(Type.String({ maxLength: 200 })),
              catalogDescription: Type.Optional(Type.String({ maxLength: 1000 })),
            },
            { examples: [{ phone: PHONE, catalogPhone: PHONE }] },
          ),
          response: sendResponses,
        },
      },
      async (r) => {
        const { catalogPhone, translation, message, title, catalogDescription, ...c } = r.body;
        return catalog.sendCatalog(instanceOf(r), c, {
          catalogPhone,
          ...(translation ? { translation } : {}),
          ...(message !== undefined ? { message } : {}),
          ...(title !== undefined ? { title } : {}),
          ...(catalogDescription !== undefined ? { catalogDescription } : {}),
        });
      },
    );
  };
}

/** The routes as one instance-scoped plugin (listed in routes/index.ts). */
export function catalogRouteTree(catalog: CatalogService, mediaBodyLimit: number) {
  return async (base: FastifyInstance): Promise<void> => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    await app.register(catalogRoutes(catalog, mediaBodyLimit));
    await app.register(catalogSendRoutes(catalog));
  };
}
